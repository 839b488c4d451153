import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createSession } from "../../src/session/index.js";
import {
  BLOBS_CAPABILITY,
  GRAPH_CAPABILITY,
  isAmplifierError,
  requireStore,
  storeOf,
  TASKS_CAPABILITY,
  VECTORS_CAPABILITY,
  type BlobStore,
  type TaskStore,
} from "../../contracts/index.js";
import { importStoreDriver } from "../../modules/stores/index.js";
import { crashLeftoverName } from "./blob-temp-support.js";
import { createBlobStore as createBlobWithoutDrivers, loadBlobStore } from "../../modules/store-blobs/index.js";
import { createGraphStore as createGraphWithoutDrivers } from "../../modules/store-graph/index.js";
import { createTaskStore as createTaskWithoutDrivers, loadTaskStore } from "../../modules/store-tasks/index.js";
import { dropSchemas, PG_URL, testSchemaName } from "../stores/postgres-support.js";

const schemas: string[] = [];
const folders: string[] = [];
afterAll(async () => {
  await dropSchemas(...schemas);
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

describe('the "stores" section of amplifier.config.json: one capability per store', () => {
  it("createSession mounts blobs (file), graph (memory), tasks (postgres) and vectors (memory) as capabilities; close disconnects them and takes them back", async () => {
    const path = await mkdtemp(join(tmpdir(), "amp-session-blobs-"));
    folders.push(path);
    const schema = testSchemaName();
    schemas.push(schema);
    const session = await createSession({
      session: { context: { module: "context-simple" } },
      stores: {
        blobs: { module: "store-blobs", config: { type: "file", path } },
        graph: { module: "store-graph", config: { type: "memory" } },
        tasks: { module: "store-tasks", config: { type: "postgres", url: PG_URL, schema } },
        vectors: { module: "store-vectors", config: { type: "memory" } },
      },
    });
    const { coordinator } = session;
    expect([BLOBS_CAPABILITY, GRAPH_CAPABILITY, TASKS_CAPABILITY, VECTORS_CAPABILITY].map((name) => (coordinator.getCapability<{ kind: string }>(name))?.kind)).toEqual(["file", "memory", "postgres", "memory"]);
    const blobs = requireStore(coordinator, "blobs");
    await blobs.upload("notes/a.txt", new TextEncoder().encode("hello"), "text/plain");
    const tasks = requireStore(coordinator, "tasks");
    const list = await tasks.createTaskList({ conversationId: "c", agentId: "a", tasks: [{ title: "t" }] });
    const vectors = requireStore(coordinator, "vectors");
    await vectors.add([{ id: "d", content: "x", embedding: [1, 0] }]);
    expect((await vectors.query([1, 0], { limit: 1 }))[0]?.id).toBe("d");
    await session.close();
    expect(storeOf(coordinator, "blobs")).toBeUndefined();
    expect(storeOf(coordinator, "tasks")).toBeUndefined();
    // Disconnected by the cleanup; the data stays where the config put it.
    expect(isAmplifierError(await blobs.download("notes/a.txt").catch((e: unknown) => e), "STORE_CLOSED")).toBe(true);
    expect(isAmplifierError(await tasks.getTaskList("c", "a").catch((e: unknown) => e), "STORE_CLOSED")).toBe(true);
    const again = createBlobWithoutDrivers({ type: "file", path });
    expect(new TextDecoder().decode((await again.download("notes/a.txt")).data)).toBe("hello");
    const tasksAgain = await loadTaskStore({ type: "postgres", url: PG_URL, schema });
    expect((await tasksAgain.getTaskList("c", "a"))?.id).toBe(list.id);
    await tasksAgain.disconnect();
  });

  it("a store config that does not match its schema fails the session, naming the path", async () => {
    const error = await createSession({ session: { context: { module: "context-simple" } }, stores: { blobs: { module: "store-blobs", config: { type: "s3" } } } }).catch((e: unknown) => e);
    expect(isAmplifierError(error, "INVALID_MODULE_CONFIG")).toBe(true);
    expect((error as { path?: string }).path).toMatch(/^stores\.blobs\.config/);
    const unknownKind = await createSession({ session: { context: { module: "context-simple" } }, stores: { files: { module: "store-blobs" } } } as never).catch((e: unknown) => e);
    expect(isAmplifierError(unknownKind, "CONFIG_INVALID")).toBe(true);
  });

  it("a server that cannot be reached fails the mount (STORAGE_UNAVAILABLE), or is skipped when the entry is optional", async () => {
    const url = "postgres://nobody:secret@127.0.0.1:1/test";
    const error = await createSession({ session: { context: { module: "context-simple" } }, stores: { graph: { module: "store-graph", config: { type: "postgres", url } } } }).catch((e: unknown) => e);
    expect(isAmplifierError(error, "STORAGE_UNAVAILABLE")).toBe(true);
    expect(String((error as Error).message)).toContain("127.0.0.1:1");
    expect(String((error as Error).message)).not.toContain("secret");
    const session = await createSession({ session: { context: { module: "context-simple" } }, stores: { graph: { module: "store-graph", optional: true, config: { type: "postgres", url } } } });
    expect(storeOf(session.coordinator, "graph")).toBeUndefined();
    await session.close();
  });

  it("amplifier-ts validate mounts the stores and lists each as stores:<kind>", async () => {
    const dir = await mkdtemp(join(tmpdir(), "amp-validate-stores-"));
    folders.push(dir);
    const config = { session: { context: { module: "context-simple" } }, stores: { blobs: { module: "store-blobs", config: { type: "file", path: "blobs" } }, tasks: { module: "store-tasks", config: { type: "memory" } } } };
    await writeFile(join(dir, "amplifier.config.json"), JSON.stringify(config));
    // Run from another folder: the file store's relative path starts at the config file's folder.
    const elsewhere = await mkdtemp(join(tmpdir(), "amp-validate-cwd-"));
    folders.push(elsewhere);
    // validate creates no folder (the file store makes its folder at the first upload), so the
    // resolved folder shows itself by the crash leftover its connect removes: one under each candidate.
    const leftover = join("blobs", "ab", await crashLeftoverName(`${"ab".padEnd(64, "0")}.blob`));
    for (const base of [dir, elsewhere]) {
      await mkdir(join(base, "blobs", "ab"), { recursive: true });
      await writeFile(join(base, leftover), "half a record");
    }
    const out = execFileSync(process.execPath, [join(process.cwd(), "dist/cli/main.js"), "validate", join(dir, "amplifier.config.json")], { cwd: elsewhere, encoding: "utf8", timeout: 60_000 });
    expect(out).toMatch(/store-blobs\s+stores:blobs\s+builtin\s+ok/);
    expect(out).toMatch(/store-tasks\s+stores:tasks\s+builtin\s+ok/);
    expect(existsSync(join(dir, leftover))).toBe(false);
    expect(existsSync(join(elsewhere, leftover))).toBe(true);
  });

  it("without the section there are no store capabilities; requireStore says how to configure one", async () => {
    const session = await createSession({ session: { context: { module: "context-simple" } } });
    expect(storeOf(session.coordinator, "blobs")).toBeUndefined();
    let error: unknown;
    try {
      requireStore(session.coordinator, "tasks");
    } catch (caught) {
      error = caught;
    }
    expect(isAmplifierError(error, "INVALID_ARGUMENT") && error.expected).toContain('"stores": { "tasks": { "module": "store-tasks"');
    await session.close();
  });
});

describe("factories: types, drivers, the amplifier-ts/stores entry", () => {
  it("amplifier-ts/stores builds every type synchronously (the PostgreSQL drivers come with the umbrella); amplifier-ts/modules/stores still works", async () => {
    const stores = await import("amplifier-ts/stores");
    const schema = testSchemaName();
    schemas.push(schema);
    const made = [
      stores.createBlobStore({ type: "memory" }),
      stores.createBlobStore({ type: "postgres", url: PG_URL, schema }),
      stores.createGraphStore({ type: "memory" }),
      stores.createGraphStore({ type: "postgres", url: PG_URL, schema }),
      stores.createTaskStore({ type: "memory" }),
      stores.createTaskStore({ type: "postgres", url: PG_URL, schema }),
    ];
    expect(made.map((s) => s.kind)).toEqual(["memory", "postgres", "memory", "postgres", "memory", "postgres"]);
    expect(made.map((s) => stores.isCypherCapable(s))).toEqual([false, false, false, false, false, false]);
    for (const store of made) await store.disconnect();
    expect(typeof stores.createHistoryStore).toBe("function");
    expect(typeof stores.runWithAgentContext).toBe("function");
    const old = await import("amplifier-ts/modules/stores");
    expect(typeof old.createHistoryStore).toBe("function");
  });

  it("postgres without its driver is STORE_DRIVER_MISSING naming @amplifier-ts/agent-stores-postgres; load…Store imports it", async () => {
    for (const make of [() => createBlobWithoutDrivers({ type: "postgres" }), () => createGraphWithoutDrivers({ type: "postgres" }), () => createTaskWithoutDrivers({ type: "postgres" })]) {
      let error: unknown;
      try {
        make();
      } catch (caught) {
        error = caught;
      }
      expect(isAmplifierError(error, "STORE_DRIVER_MISSING")).toBe(true);
      expect((error as { details: { hint?: string } }).details.hint).toBe("npm install @amplifier-ts/agent-stores-postgres");
    }
    const loaded: BlobStore = await loadBlobStore({ type: "postgres", url: PG_URL });
    expect(loaded.kind).toBe("postgres");
    await loaded.disconnect();
    const missing = await importStoreDriver({ kind: "blobs", type: "postgres", packageName: "@amplifier-ts/not-installed-anywhere", exportName: "blobDriver" }).catch((e: unknown) => e);
    expect(isAmplifierError(missing, "STORE_DRIVER_MISSING")).toBe(true);
    expect(String((missing as Error).message)).toContain("@amplifier-ts/not-installed-anywhere");
    const wrongExport = await importStoreDriver({ kind: "blobs", type: "postgres", packageName: "@amplifier-ts/agent-stores-postgres", exportName: "noSuchDriver" }).catch((e: unknown) => e);
    expect(isAmplifierError(wrongExport, "STORE_DRIVER_MISSING")).toBe(true);
  });

  it("an unknown type is UNKNOWN_STORE listing the types; a config that is not an object is INVALID_ARGUMENT", () => {
    const attempts: Array<[() => unknown, string, string]> = [
      [() => createBlobWithoutDrivers({ type: "s3" } as never), "UNKNOWN_STORE", "one of memory, file, postgres"],
      [() => createGraphWithoutDrivers({ type: "age" } as never), "UNKNOWN_STORE", "one of memory, postgres"],
      [() => createTaskWithoutDrivers({ type: "redis" } as never), "UNKNOWN_STORE", "one of memory, postgres"],
      [() => createTaskWithoutDrivers(null as never), "INVALID_ARGUMENT", '{ type: "memory" | "postgres", … }'],
    ];
    for (const [attempt, code, expected] of attempts) {
      let error: unknown;
      try {
        attempt();
      } catch (caught) {
        error = caught;
      }
      expect(isAmplifierError(error) && [error.code, error.expected]).toEqual([code, expected]);
    }
  });

  it("PostgreSQL options are checked when the store is built: schema and prefix are plain identifiers, the url a postgres:// url", async () => {
    const stores = await import("amplifier-ts/stores");
    const bad: Array<[() => unknown, string]> = [
      [() => stores.createTaskStore({ type: "postgres", schema: 'x"; drop table y; --' }), "schema"],
      [() => stores.createGraphStore({ type: "postgres", tablePrefix: "Bad" }), "tablePrefix"],
      [() => stores.createBlobStore({ type: "postgres", url: "mysql://h/db" }), "url"],
      [() => stores.createBlobStore({ type: "postgres", chunkBytes: 10 }), "chunkBytes"],
    ];
    for (const [attempt, path] of bad) {
      let error: unknown;
      try {
        attempt();
      } catch (caught) {
        error = caught;
      }
      expect(isAmplifierError(error, "INVALID_ARGUMENT") && error.path).toBe(path);
    }
    const unused: TaskStore = stores.createTaskStore({ type: "memory" });
    await unused.disconnect();
  });
});
