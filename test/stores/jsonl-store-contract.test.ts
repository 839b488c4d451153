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

// readOnly only changes what a load writes beside the file (no sidecar index): every contract
// behaviour, writes included, holds — reopened read-only and writable.
describeHistoryStoreContract("jsonl (readOnly)", async () => {
  const storagePath = await mkdtemp(join(tmpdir(), "amplifier-jsonl-readonly-"));
  let reopens = 0;
  return {
    store: new JsonlStore({ storagePath, fsync: "never", readOnly: true }),
    reopen: async () => new JsonlStore({ storagePath, fsync: "never", readOnly: ++reopens % 2 === 0 }),
    cleanup: () => rm(storagePath, { recursive: true, force: true }),
  };
}, { attachments: true });
