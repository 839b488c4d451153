/**
 * `amplifier-ts sessions … --agent <id>` (issue 18): every action works on one agent's sessions;
 * without --agent, on the default agent's (the sessions of stores written before agents).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Message } from "../../contracts/generated/message.js";
import { runCliCollecting } from "../support/run-cli-collecting.js";
import { JsonlStore } from "../../modules/stores/jsonl-store.js";
import { PostgresStore, RedisStore } from "../../src/modules/stores.js";
import { dropSchemas, PG_URL, testSchemaName } from "../stores/postgres-support.js";
import { dropPrefixes, REDIS_URL, testKeyPrefix } from "../stores/redis-support.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "amp-sessions-agents-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const cli = (...argv: string[]) => runCliCollecting(dir, argv);
const said = (text: string): Message => ({ role: "user", content: text, metadata: { id: text } });
const sessionIds = (table: string) => table.split("\n").slice(1).filter(Boolean).map((line) => line.split(/\s+/)[0]);

/** Folder "a": the default agent has s1 and s2, planner has s1 and p9, coder has s1. */
async function seed(): Promise<void> {
  const store = new JsonlStore({ storagePath: join(dir, "a"), fsync: "never" });
  await store.appendMany("s1", [said("d1"), said("d2")]);
  await store.append("s2", said("d3"));
  await store.appendMany("s1", [said("p1"), said("p2"), said("p3")], { agentId: "planner" });
  await store.append("p9", said("p4"), { agentId: "planner" });
  await store.append("s1", said("c1"), { agentId: "coder" });
  await store.close();
}

async function read(folder: string, sessionId: string, agentId?: string): Promise<unknown[]> {
  const store = new JsonlStore({ storagePath: join(dir, folder), fsync: "never" });
  try {
    return (await store.read(sessionId, agentId === undefined ? undefined : { agentId })).map((m) => m.content);
  } finally {
    await store.close();
  }
}

describe("amplifier-ts sessions --agent", () => {
  it("list --agent <id> lists that agent's sessions with their counts; without it, the default agent's", async () => {
    await seed();
    const planner = await cli("sessions", "list", "--store", "a", "--agent", "planner");
    expect(planner.code).toBe(0);
    expect(sessionIds(planner.stdout)).toEqual(["p9", "s1"]);
    expect(planner.stdout).toMatch(/s1\s+3\s/);
    expect(planner.stderr).toBe("2 sessions of agent planner in jsonl\n");
    const coder = await cli("sessions", "list", "--store", "a", "--agent", "coder");
    expect(sessionIds(coder.stdout)).toEqual(["s1"]);
    expect(coder.stdout).toMatch(/s1\s+1\s/);
    const unnamed = await cli("sessions", "list", "--store", "a");
    expect(sessionIds(unnamed.stdout)).toEqual(["s1", "s2"]);
    expect(unnamed.stdout).toMatch(/s1\s+2\s/);
    expect(sessionIds((await cli("sessions", "list", "--store", "a", "--agent", "default")).stdout)).toEqual(["s1", "s2"]);
    expect(sessionIds((await cli("sessions", "list", "--store", "a", "--agent", "nobody")).stdout)).toEqual([]);
  });

  it("show, export and delete act on the named agent's session only", async () => {
    await seed();
    const shown = await cli("sessions", "show", "s1", "--store", "a", "--agent", "planner", "--format", "jsonl");
    expect(shown.stdout.trim().split("\n").map((l) => JSON.parse(l).content)).toEqual(["p1", "p2", "p3"]);
    const exported = await cli("sessions", "export", "s1", "--store", "a", "--agent", "coder");
    expect(exported.stdout.trim().split("\n").map((l) => JSON.parse(l).content)).toEqual(["c1"]);
    expect((await cli("sessions", "show", "p9", "--store", "a")).code).toBe(1);
    const deleted = await cli("sessions", "delete", "s1", "--store", "a", "--agent", "planner", "--yes");
    expect([deleted.code, deleted.stdout]).toEqual([0, "deleted s1 (3 messages) from jsonl\n"]);
    expect(await read("a", "s1", "planner")).toEqual([]);
    expect(await read("a", "s1", "coder")).toEqual(["c1"]);
    expect(await read("a", "s1")).toEqual(["d1", "d2"]);
  });

  it("export --all --to copies the agent's sessions into the same agent of the target", async () => {
    await seed();
    const copied = await cli("sessions", "export", "--all", "--to", "jsonl:b", "--store", "a", "--agent", "planner");
    expect(copied.code).toBe(0);
    expect(await read("b", "s1", "planner")).toEqual(["p1", "p2", "p3"]);
    expect(await read("b", "p9", "planner")).toEqual(["p4"]);
    expect(await read("b", "s1")).toEqual([]);
  });

  it("a bad --agent is a usage error (exit 2) naming the expected alphabet; nothing is opened", async () => {
    for (const agent of ["../x", "a:b", ".hidden"]) {
      const result = await cli("sessions", "list", "--store", "a", "--agent", agent);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`--agent ${agent}: expected an agent id of 1-128 characters of [A-Za-z0-9._-]`);
    }
  });

  it("list --agent on PostgreSQL and Redis store urls", async () => {
    const schema = testSchemaName();
    const keyPrefix = testKeyPrefix();
    try {
      for (const store of [new PostgresStore({ url: PG_URL, schema }), new RedisStore({ url: REDIS_URL, keyPrefix })]) {
        await store.append("shared", said("d"));
        await store.appendMany("shared", [said("p1"), said("p2")], { agentId: "planner" });
        await store.append("mine", said("p3"), { agentId: "planner" });
        await store.close();
      }
      for (const url of [`${PG_URL}?schema=${schema}`, `${REDIS_URL}?keyPrefix=${keyPrefix}`]) {
        const planner = await cli("sessions", "list", "--store", url, "--agent", "planner");
        expect([planner.code, sessionIds(planner.stdout)]).toEqual([0, ["mine", "shared"]]);
        expect(planner.stdout).toMatch(/shared\s+2\s/);
        const unnamed = await cli("sessions", "list", "--store", url);
        expect(sessionIds(unnamed.stdout)).toEqual(["shared"]);
        expect(unnamed.stdout).toMatch(/shared\s+1\s/);
      }
    } finally {
      await dropSchemas(schema);
      await dropPrefixes(keyPrefix);
    }
  });
});
