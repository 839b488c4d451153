/**
 * `amplifier-ts sessions list|show|export|import|delete`: on JSONL folders here (PostgreSQL and
 * Redis copies are tested with their stores), and store URLs.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Message } from "../../contracts/generated/message.js";
import { runCliCollecting } from "../support/run-cli-collecting.js";
import { contentHash } from "../../src/cli/commands/sessions.js";
import { JsonlStore } from "../../modules/stores/jsonl-store.js";
import { parseStoreUrl } from "../../modules/stores/store-url.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "amp-sessions-cli-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const cli = (...argv: string[]) => runCliCollecting(dir, argv);

const conversation = (n: number, tag = "m"): Message[] =>
  Array.from({ length: n }, (_, i): Message => ({ role: i % 2 ? "assistant" : "user", content: `${tag} ${i} — ünïcode ✓`, metadata: { id: `${tag}${i}` } }));

async function seed(folder: string, sessions: Record<string, Message[]>) {
  const store = new JsonlStore({ storagePath: join(dir, folder), fsync: "never" });
  for (const [id, messages] of Object.entries(sessions)) await store.appendMany(id, messages);
  await store.close();
}

async function read(folder: string, id: string) {
  const store = new JsonlStore({ storagePath: join(dir, folder), fsync: "never" });
  try {
    return await store.read(id);
  } finally {
    await store.close();
  }
}

describe("amplifier-ts sessions", () => {
  it("list: every session with its count", async () => {
    await seed("a", { alpha: conversation(3), beta: conversation(5) });
    const { code, stdout, stderr } = await cli("sessions", "list", "--store", "a");
    expect(code).toBe(0);
    expect(stdout.split("\n")[0]).toMatch(/^SESSION\s+MESSAGES\s+BYTES\s+UPDATED$/);
    expect(stdout).toMatch(/alpha\s+3\s/);
    expect(stdout).toMatch(/beta\s+5\s/);
    expect(stderr).toContain("2 sessions in jsonl");
  });

  it("show: a table, or JSONL that round-trips", async () => {
    await seed("a", { alpha: conversation(3) });
    const table = await cli("sessions", "show", "alpha", "--store", "jsonl:a");
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/1\s+user\s+m0\s+-\s+m 0 — ünïcode ✓/);
    const jsonl = await cli("sessions", "show", "alpha", "--store", "a", "--format", "jsonl");
    expect(jsonl.stdout.trim().split("\n").map((l) => JSON.parse(l))).toEqual(conversation(3));
    expect((await cli("sessions", "show", "nobody", "--store", "a")).code).toBe(1);
    expect((await cli("sessions", "show", "alpha", "--store", "a", "--format", "xml")).code).toBe(2);
  });

  it("export → import into another folder: copied, then unchanged, then appended; verified by hash", async () => {
    await seed("a", { alpha: conversation(4) });
    const exported = await cli("sessions", "export", "alpha", "--store", "a", "--out", "alpha.jsonl");
    expect(exported.code).toBe(0);
    const first = await cli("sessions", "import", "alpha.jsonl", "--session", "copy", "--store", "b");
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/copy\s+4\s+copied\s+[0-9a-f]{16}/);
    expect(await read("b", "copy")).toEqual(conversation(4));
    const again = await cli("sessions", "import", "alpha.jsonl", "--session", "copy", "--store", "b");
    expect(again.stdout).toMatch(/copy\s+4\s+unchanged/);
    await writeFile(join(dir, "longer.jsonl"), conversation(6).map((m) => JSON.stringify(m)).join("\n") + "\n");
    const grown = await cli("sessions", "import", "longer.jsonl", "--session", "copy", "--store", "b");
    expect(grown.stdout).toMatch(/copy\s+6\s+appended/);
    expect(contentHash(await read("b", "copy"))).toBe(contentHash(conversation(6)));
  });

  it("import of other messages into an existing session: refused (exit 1, nothing changed) unless --replace", async () => {
    await seed("b", { copy: conversation(3, "x") });
    await writeFile(join(dir, "other.jsonl"), conversation(3, "y").map((m) => JSON.stringify(m)).join("\n"));
    const refused = await cli("sessions", "import", "other.jsonl", "--session", "copy", "--store", "b");
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain("conflict");
    expect(await read("b", "copy")).toEqual(conversation(3, "x"));
    const replaced = await cli("sessions", "import", "other.jsonl", "--session", "copy", "--store", "b", "--replace");
    expect(replaced.code).toBe(0);
    expect(replaced.stdout).toContain("replaced");
    expect(await read("b", "copy")).toEqual(conversation(3, "y"));
  });

  it("import rejects a file that is not JSONL messages, naming the line", async () => {
    await writeFile(join(dir, "bad.jsonl"), `${JSON.stringify(conversation(1)[0])}\n{"no role": true}\n`);
    const { code, stderr } = await cli("sessions", "import", "bad.jsonl", "--session", "s", "--store", "b");
    expect(code).toBe(1);
    expect(stderr).toContain("[TRANSCRIPT_INVALID] bad.jsonl line 2");
    expect(await read("b", "s")).toEqual([]);
  });

  it("import validates every record against the Message contract: exit 1 naming the line and id, nothing written", async () => {
    const good = JSON.stringify(conversation(1)[0]);
    const bad: [string, string][] = [
      ['{"role":"assistant","content":42,"metadata":{"id":"n42"}}', 'line 2 (id "n42"): content'],
      ['{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function"}]}', "line 2: tool_calls[0].function"],
      ['{"role":"constructor","content":"x"}', "line 2: role"],
      ['{"role":"__proto__","content":"x"}', "line 2: role"],
    ];
    for (const [record, named] of bad) {
      await writeFile(join(dir, "bad.jsonl"), `${good}\n${record}\n${good}\n`);
      const { code, stderr } = await cli("sessions", "import", "bad.jsonl", "--session", "s", "--store", "b");
      expect(code, record).toBe(1);
      expect(stderr, record).toContain("[TRANSCRIPT_INVALID] bad.jsonl");
      expect(stderr, record).toContain(named);
      expect(await read("b", "s"), record).toEqual([]);
    }
  });

  it("show: a stored JSONL record that is not a message (role \"constructor\") is skipped as a corrupt record, never shown", async () => {
    await seed("a", { alpha: conversation(2) });
    await writeFile(join(dir, "a", "alpha.jsonl"), `${await readFile(join(dir, "a", "alpha.jsonl"), "utf8")}{"role":"constructor","content":"x","metadata":{"id":"evil"}}\n`);
    const shown = await cli("sessions", "show", "alpha", "--store", "a");
    expect(shown.code).toBe(0);
    expect(shown.stdout).not.toContain("evil");
    expect(shown.stdout).toMatch(/m1/);
  });

  it("export --all --to copies every session between stores, idempotently", async () => {
    await seed("a", { alpha: conversation(2), beta: conversation(7) });
    const first = await cli("sessions", "export", "--all", "--store", "a", "--to", `jsonl:${join(dir, "b")}`);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/alpha\s+2\s+copied/);
    expect(first.stdout).toMatch(/beta\s+7\s+copied/);
    const second = await cli("sessions", "export", "--all", "--store", "a", "--to", "b");
    expect(second.stdout).toMatch(/alpha\s+2\s+unchanged/);
    expect(second.stdout).toMatch(/beta\s+7\s+unchanged/);
    expect(await read("b", "beta")).toEqual(conversation(7));
  });

  it("export copies a session that repeats a message id exactly (appends would skip the repeat: written before they were idempotent)", async () => {
    const repeated: Message[] = [...conversation(2), { role: "user", content: "again", metadata: { id: "m0" } }];
    await mkdir(join(dir, "a"), { recursive: true });
    await writeFile(join(dir, "a", "old.jsonl"), repeated.map((m) => JSON.stringify(m)).join("\n") + "\n");
    const copied = await cli("sessions", "export", "--all", "--store", "a", "--to", `jsonl:${join(dir, "b")}`);
    expect(copied.stderr).toBe("");
    expect(copied.code).toBe(0);
    expect(copied.stdout).toMatch(/old\s+3\s+copied/);
    expect(await read("b", "old")).toEqual(repeated);
  });

  it("delete needs --yes, then removes the session", async () => {
    await seed("a", { alpha: conversation(2), beta: conversation(1) });
    const unconfirmed = await cli("sessions", "delete", "alpha", "--store", "a");
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toContain("--yes");
    expect(await read("a", "alpha")).toHaveLength(2);
    const done = await cli("sessions", "delete", "alpha", "--store", "a", "--yes");
    expect(done.code).toBe(0);
    expect(done.stdout).toContain("deleted alpha (2 messages)");
    expect(await read("a", "alpha")).toEqual([]);
    expect(await read("a", "beta")).toHaveLength(1);
  });

  it("usage errors: unknown action (did you mean), unknown store scheme, missing arguments", async () => {
    const typo = await cli("sessions", "lst");
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('did you mean "list"?');
    const scheme = await cli("sessions", "list", "--store", "mysql://localhost/db");
    expect(scheme.code).toBe(2);
    expect(scheme.stderr).toContain("postgres://");
    expect((await cli("sessions", "import", "x.jsonl", "--store", "b")).code).toBe(2);
    expect((await cli("sessions", "export", "--all", "--store", "a")).code).toBe(2);
  });
});

describe("parseStoreUrl", () => {
  it("names every store kind", () => {
    expect(parseStoreUrl("postgres://u@127.0.0.1:5432/test?schema=amp&table=hist")).toEqual({ type: "postgres", url: "postgres://u@127.0.0.1:5432/test", schema: "amp", table: "hist" });
    expect(parseStoreUrl("postgresql://h/db")).toMatchObject({ type: "postgres", url: "postgresql://h/db" });
    expect(parseStoreUrl("redis://127.0.0.1:6379?keyPrefix=amp:")).toEqual({ type: "redis", url: "redis://127.0.0.1:6379", keyPrefix: "amp:" });
    expect(parseStoreUrl("jsonl:sessions", "/srv")).toEqual({ type: "jsonl", storagePath: "/srv/sessions", fsync: "always" });
    expect(parseStoreUrl("file:///var/amp")).toEqual({ type: "jsonl", storagePath: "/var/amp", fsync: "always" });
    expect(parseStoreUrl("./data", "/srv")).toEqual({ type: "jsonl", storagePath: "/srv/data", fsync: "always" });
    expect(parseStoreUrl("memory:")).toEqual({ type: "memory" });
  });

  it("rejects unknown schemes and empty names with typed errors", () => {
    expect(() => parseStoreUrl("mysql://x/y")).toThrowError(expect.objectContaining({ code: "UNKNOWN_STORE" }));
    expect(() => parseStoreUrl("")).toThrowError(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
    expect(() => parseStoreUrl("jsonl:")).toThrowError(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
  });
});

describe("contentHash", () => {
  it("ignores key order (PostgreSQL jsonb reorders keys) but not values or message order", () => {
    const a: Message = { role: "user", content: "hi", metadata: { id: "1", timestamp: "t" } };
    const b = { metadata: { timestamp: "t", id: "1" }, content: "hi", role: "user" } as Message;
    expect(contentHash([a])).toBe(contentHash([b]));
    expect(contentHash([a, b])).not.toBe(contentHash([a]));
    expect(contentHash([{ ...a, content: "hi!" }])).not.toBe(contentHash([a]));
    const c: Message = { role: "assistant", content: "x" };
    expect(contentHash([a, c])).not.toBe(contentHash([c, a]));
  });
});
