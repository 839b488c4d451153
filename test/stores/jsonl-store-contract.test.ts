import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeHistoryStoreContract } from "../../testing/history-store-contract.js";
import { JsonlStore, type FsyncMode } from "../../src/modules/stores.js";

for (const fsync of ["always", "batch", "never"] satisfies FsyncMode[]) {
  describeHistoryStoreContract(`jsonl (fsync ${fsync})`, async () => {
    const storagePath = await mkdtemp(join(tmpdir(), `amplifier-jsonl-${fsync}-`));
    return {
      store: new JsonlStore({ storagePath, fsync }),
      reopen: async () => new JsonlStore({ storagePath, fsync }),
      cleanup: () => rm(storagePath, { recursive: true, force: true }),
    };
  }, { attachments: true });
}

// A readOnly store is a reader (no writes, no lock): test/stores/jsonl-reader.test.ts.
