import { describe, expect, it } from "vitest";
import { createHistoryStore, HISTORY_STORE_TYPES, JsonlStore, MemoryStore, PostgresStore } from "../../src/modules/stores.js";
import { thrown } from "../support/thrown.js";

describe("createHistoryStore", () => {
  it("builds each known type", async () => {
    expect(HISTORY_STORE_TYPES.slice(0, 3)).toEqual(["memory", "jsonl", "postgres"]);
    expect(createHistoryStore({ type: "postgres", url: "postgres://127.0.0.1:5432/test" })).toBeInstanceOf(PostgresStore);
    expect(createHistoryStore({ type: "memory" })).toBeInstanceOf(MemoryStore);
    const jsonl = createHistoryStore({ type: "jsonl", storagePath: "/tmp/amplifier-unused", fsync: "batch" });
    expect(jsonl).toBeInstanceOf(JsonlStore);
    expect(jsonl).toMatchObject({ kind: "jsonl", storagePath: "/tmp/amplifier-unused", fsync: "batch" });
    await jsonl.close();
  });

  it("JSONL defaults: .amplifier/sessions under the working directory, fsync always", async () => {
    const store = createHistoryStore({ type: "jsonl" }) as JsonlStore;
    expect(store.storagePath).toBe(`${process.cwd()}/.amplifier/sessions`);
    expect(store.fsync).toBe("always");
    await store.close();
  });

  it("an unknown type is UNKNOWN_STORE listing the known ones", () => {
    const error = thrown(() => createHistoryStore({ type: "postgress" } as never));
    expect(error.code).toBe("UNKNOWN_STORE");
    expect(error.details).toMatchObject({ path: "store.type", given: "postgress", expected: `one of ${HISTORY_STORE_TYPES.join(", ")}` });
    expect(error.details.expected).toContain("postgres");
  });

  it.each([null, "jsonl", [], 3])("a config that is not an object (%j) is INVALID_ARGUMENT", (config) => {
    expect(thrown(() => createHistoryStore(config as never)).code).toBe("INVALID_ARGUMENT");
  });

  it.each([
    ["fsync", { fsync: "sometimes" }],
    ["storagePath", { storagePath: "" }],
    ["storagePath", { storagePath: 7 }],
    ["onRecover", { onRecover: "log" }],
  ])("bad JSONL option %s is INVALID_ARGUMENT naming it", (name, options) => {
    const error = thrown(() => createHistoryStore({ type: "jsonl", ...options } as never));
    expect(error.code).toBe("INVALID_ARGUMENT");
    expect(error.details.path).toBe(`store.${name}`);
  });
});
