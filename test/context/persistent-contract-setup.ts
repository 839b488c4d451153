import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeContextManagerContract } from "../../testing/index.js";
import { createSession } from "../../src/session/index.js";

/** The conformance suite on context-persistent over a JSONL store in a fresh folder, mounted through createSession. */
export function describePersistentContract(fsync: "always" | "never"): void {
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
