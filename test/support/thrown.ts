/** The error a synchronous call throws, typed loosely for assertions; fails the test when nothing is thrown. */
export function thrown(fn: () => unknown): { code: string; message: string; details: Record<string, unknown> } {
  try {
    fn();
  } catch (error) {
    return error as { code: string; message: string; details: Record<string, unknown> };
  }
  throw new Error("expected a throw");
}
