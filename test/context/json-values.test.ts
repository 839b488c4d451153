import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Message } from "../../contracts/index.js";
import { Coordinator } from "../../core/coordinator.js";
import { HistoryContextManager } from "../../modules/context-manager/history-context-manager.js";
import { mount as mountPersistent } from "../../modules/context-persistent/index.js";
import { mount as mountSimple } from "../../modules/context-simple/index.js";

/**
 * Issue 14, items 4 and 13: both built-in context modules take only what JSON holds (the stores
 * keep JSON), refusing the rest at addMessage with INVALID_MESSAGE naming the path; a resumed
 * message that can no longer be used never stops the session.
 */
let dir: string;
const coordinators: Coordinator[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "amplifier-json-values-"));
});
afterEach(async () => {
  await Promise.allSettled(coordinators.splice(0).map((c) => c.cleanup()));
  await rm(dir, { recursive: true, force: true });
});

const modules = {
  "context-simple": (coordinator: Coordinator) => mountSimple(coordinator, {}),
  "context-persistent": (coordinator: Coordinator) => mountPersistent(coordinator, { storagePath: dir }),
};

async function open(name: keyof typeof modules, sessionId = "s1"): Promise<HistoryContextManager> {
  const coordinator = new Coordinator({ sessionId });
  coordinators.push(coordinator);
  return modules[name](coordinator);
}

const toolUse = (input: unknown): Message => ({ role: "assistant", content: [{ type: "tool_use", id: "call-1", name: "lookup", input: input as Record<string, unknown> }] });
const circular = (): Record<string, unknown> => {
  const value: Record<string, unknown> = { q: "x" };
  value.self = value;
  return value;
};

const refused: Array<[string, () => Message, string, RegExp]> = [
  ["a circular tool_use.input", () => toolUse(circular()), "message.content[0].input.self", /cycle/],
  ["a BigInt in tool_use.input", () => toolUse({ n: 10n }), "message.content[0].input.n", /BigInt/],
  ["NaN in metadata", () => ({ role: "user", content: "hi", metadata: { score: Number.NaN } }), "message.metadata.score", /finite number/],
  ["Infinity in tool_use.input", () => toolUse({ limit: Number.POSITIVE_INFINITY }), "message.content[0].input.limit", /finite number/],
  ["a Date in metadata", () => ({ role: "user", content: "hi", metadata: { at: new Date(0) } }), "message.metadata.at", /Date.*toISOString/],
  ["a Map in tool_use.input", () => toolUse({ index: new Map([["a", 1]]) }), "message.content[0].input.index", /Map/],
  ["undefined inside an array", () => toolUse({ list: [1, undefined] }), "message.content[0].input.list[1]", /undefined in an array/],
];

describe.each(Object.keys(modules) as Array<keyof typeof modules>)("%s takes only JSON values at addMessage", (name) => {
  it.each(refused)("refuses %s with INVALID_MESSAGE naming its path; the history and later windows stay usable", async (_, build, path, expected) => {
    const context = await open(name);
    await context.addMessage({ role: "user", content: "before" });
    await expect(context.addMessage(build())).rejects.toMatchObject({ code: "INVALID_MESSAGE", details: { path, expected: expect.stringMatching(expected) } });
    expect((await context.getMessages()).map((m) => m.content)).toEqual(["before"]);
    expect((await context.getMessagesForRequest(1_000)).map((m) => m.content)).toEqual(["before"]);
  });

  it("an undefined property is absent in the stored copy, as JSON (and a resume) has it; -0 is 0", async () => {
    const context = await open(name);
    await context.addMessage({ role: "user", content: "hi", name: undefined, metadata: { id: "m1", note: undefined, offset: -0 } } as Message);
    const [stored] = await context.getMessages();
    expect(Object.keys(stored!)).not.toContain("name");
    expect(Object.keys(stored!.metadata!)).not.toContain("note");
    expect(Object.is(stored!.metadata!.offset, 0)).toBe(true);
  });
});

describe("the same values live and after a resume (issue 14, item 13)", () => {
  it("what context-persistent hands out live equals what it reads back", async () => {
    const live = await open("context-persistent", "resume");
    await live.addMessage({ role: "user", content: "hi", metadata: { id: "m1", tags: ["a"], nested: { n: 1.5, none: null, skip: undefined } } } as Message);
    await live.addMessage(toolUse({ q: "x", opts: { deep: [1, { b: true }] }, gone: undefined }));
    const before = await live.getMessages();
    await coordinators.pop()!.cleanup();
    const resumed = await open("context-persistent", "resume");
    expect(await resumed.getMessages()).toStrictEqual(before);
  });
});

describe("a resumed message that can no longer be used never stops the session (issue 14, item 4)", () => {
  it("it is left out of the history and reported with its index and id; windows work", async () => {
    const poisoned = { role: "assistant", content: [{ type: "tool_use", id: "c1", name: "t", input: circular() }], metadata: { id: "bad-1" } } as Message;
    const context = new HistoryContextManager({
      moduleName: "test",
      initialMessages: [
        { role: "user", content: "first", metadata: { id: "u1" } },
        poisoned,
        { role: "user", content: "second", metadata: { id: "u2" } },
      ],
    });
    expect(context.skippedOnResume).toEqual([{ index: 1, id: "bad-1", error: expect.objectContaining({ code: "INVALID_MESSAGE", details: expect.objectContaining({ path: "initialMessages[1].content[0].input.self" }) }) }]);
    expect((await context.getMessagesForRequest(1_000)).map((m) => m.metadata?.id)).toEqual(["u1", "u2"]);
    await context.addMessage({ role: "user", content: "third" });
    expect(await context.getMessagesForRequest(1_000)).toHaveLength(3);
  });
});
