import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeContextManagerContract } from "../../contracts/testing/index.js";
import { createSession } from "../../core/session.js";

// Both built-in context modules run the exported conformance suite, mounted the way users mount
// them: through createSession and the loader.

describeContextManagerContract("context-simple", async () => {
  const session = await createSession({ session: { context: { module: "context-simple", config: {} } } });
  return { context: session.context, hooks: session.hooks, close: session.close };
});

for (const fsync of ["always", "never"] as const) {
  describeContextManagerContract(`context-persistent (jsonl, fsync ${fsync})`, async () => {
    const dir = await mkdtemp(join(tmpdir(), "amplifier-contract-"));
    const session = await createSession({
      session: { context: { module: "context-persistent", config: { storagePath: dir, fsync } } },
    });
    return {
      context: session.context,
      hooks: session.hooks,
      close: async () => {
        await session.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  });
}
