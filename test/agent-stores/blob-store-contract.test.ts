import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describeBlobStoreContract } from "../../testing/blob-store-contract.js";
import { createBlobStore } from "../../src/stores.js";
import { dropSchemas, PG_URL, testSchemaName } from "../stores/postgres-support.js";

/**
 * The BlobStore contract on the three stores amplifier-ts/stores builds: memory, file (a fresh
 * folder per case) and PostgreSQL (127.0.0.1:5432 db test, a schema per case, 256 KiB chunks so the
 * multi-megabyte case spans 25 chunk rows and 4 read round trips).
 */
describeBlobStoreContract("memory", async ({ maxBlobBytes }) => ({ store: createBlobStore({ type: "memory", maxBlobBytes }) }), {
  presignUrl: (key) => `memory://${key}`,
});

describeBlobStoreContract(
  "file",
  async ({ maxBlobBytes }) => {
    const path = await mkdtemp(join(tmpdir(), "amp-blobs-"));
    return {
      store: createBlobStore({ type: "file", path, maxBlobBytes }),
      reopen: () => createBlobStore({ type: "file", path, maxBlobBytes }),
      cleanup: () => rm(path, { recursive: true, force: true }),
    };
  },
  { presignUrl: () => new RegExp(`^${pathToFileURL(tmpdir()).href}/amp-blobs-[^/]+/[0-9a-f]{2}/[0-9a-f]{64}\\.blob$`) },
);

describeBlobStoreContract(
  "postgres",
  async ({ maxBlobBytes }) => {
    const schema = testSchemaName();
    const options = { type: "postgres" as const, url: PG_URL, schema, maxBlobBytes, chunkBytes: 256 * 1024 };
    return { store: createBlobStore(options), reopen: () => createBlobStore(options), cleanup: () => dropSchemas(schema) };
  },
  { presignUrl: (key) => new RegExp(`^postgres-blob://127\\.0\\.0\\.1:5432/test/amp_test_[0-9a-f]{12}\\.amplifier_blobs/${key}$`) },
);
