import { randomUUID } from "node:crypto";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { describeHistoryStoreContract } from "@amplifier-ts/testing";
import { Coordinator } from "../../core/coordinator.js";
import { mount as mountPersistent } from "../../modules/context-persistent/index.js";
import { BUILT_IN_HISTORY_STORES, HISTORY_STORES_CAPABILITY, HistoryStoreRegistry, type HistoryStoreEntry } from "../../modules/stores/index.js";

/**
 * A store type added from outside: the fixture package (test/fixtures/history-store-sqlite-like)
 * and one entry — the same line BUILT_IN_HISTORY_STORES holds for postgres and redis — are all it
 * takes. Nothing else in the repository names it.
 */
const FIXTURE = pathToFileURL(fileURLToPath(new URL("../fixtures/history-store-sqlite-like/index.ts", import.meta.url))).href;
const line: HistoryStoreEntry = { type: "sqlite-like", package: FIXTURE };

const registry = new HistoryStoreRegistry([...BUILT_IN_HISTORY_STORES, line]);

describe("a sqlite-like history store registered by one line", () => {
  it("is a registered type beside the built-ins, loaded from its package when a config names it", async () => {
    expect(registry.types()).toEqual([...BUILT_IN_HISTORY_STORES.map((entry) => entry.type), "sqlite-like"]);
    expect(registry.definition("sqlite-like"), "a reference until a config names it").toBeUndefined();
    const store = await registry.load({ type: "sqlite-like", database: "registration" });
    expect(store.kind).toBe("sqlite-like");
    expect((await registry.resolve("sqlite-like"))?.description).toMatch(/in-memory databases/);
    await store.close();
  });

  it("its options are checked by its own schema, an unknown type lists the registered ones", async () => {
    await expect(registry.load({ type: "sqlite-like", databse: "x" })).rejects.toMatchObject({ code: "INVALID_ARGUMENT", details: { path: "store.databse", hint: expect.stringContaining(`"database"`) } });
    await expect(registry.load({ type: "sqlite-lik" })).rejects.toMatchObject({
      code: "UNKNOWN_STORE",
      details: { path: "store.type", hint: 'did you mean "sqlite-like"?', expected: expect.stringContaining("sqlite-like") },
    });
  });
});

describeHistoryStoreContract(
  "sqlite-like (through the registry)",
  async () => {
    const config = { type: "sqlite-like", database: `contract-${randomUUID()}` };
    return { store: await registry.load(config), reopen: () => registry.load(config) };
  },
  { attachments: true },
);

describe("a session whose store is { type: \"sqlite-like\" }", () => {
  const coordinators: Coordinator[] = [];
  afterEach(async () => {
    for (const coordinator of coordinators.splice(0)) await coordinator.cleanup();
  });
  const session = (id: string, entries?: HistoryStoreEntry[]) => {
    const coordinator = new Coordinator({ sessionId: id });
    coordinators.push(coordinator);
    if (entries) coordinator.registerCapability(HISTORY_STORES_CAPABILITY, entries);
    return coordinator;
  };

  it("keeps its history in the registered store: a second session on the same database reads it back", async () => {
    const database = `session-${randomUUID()}`;
    const first = await mountPersistent(session("s1", [line]), { store: { type: "sqlite-like", database }, strict: true });
    await first.addMessage({ role: "user", content: "kept in sqlite-like" });
    const second = await mountPersistent(session("s1", [line]), { store: { type: "sqlite-like", database }, strict: true });
    expect((await second.getMessages()).map((m) => m.content)).toEqual(["kept in sqlite-like"]);
  });

  it("is unknown to a session that did not register it: UNKNOWN_STORE naming the registered types", async () => {
    await expect(mountPersistent(session("s2"), { store: { type: "sqlite-like" }, strict: true })).rejects.toMatchObject({
      code: "UNKNOWN_STORE",
      details: { expected: `one of ${BUILT_IN_HISTORY_STORES.map((entry) => entry.type).join(", ")}` },
    });
  });
});
