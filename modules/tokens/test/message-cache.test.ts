/**
 * Each message is tokenized at most once per encoding, and a cached count is only ever
 * returned for a message that counts the same (message-cache.ts).
 */
import { describe, expect, it } from "vitest";
import { getTokenCounter } from "../index.js";
import { MessageTokenCache } from "../message-cache.js";
import type { Message } from "@amplifier-ts/contracts";
import { wordTokenizer } from "./fixtures.js";

function setup(model = "gpt-4o") {
  const tokenizer = wordTokenizer();
  const counter = getTokenCounter(model, { tokenizer });
  const tokenized = () => tokenizer.calls.length;
  return { tokenizer, counter, tokenized };
}

describe("tokenized at most once", () => {
  it("counting the same message again does not tokenize it again", () => {
    const { counter, tokenized } = setup();
    const m: Message = { role: "user", content: "hello there world" };
    const first = counter.countMessage(m);
    const calls = tokenized();
    expect(counter.countMessage(m)).toBe(first);
    expect(counter.countMessages([m, m, m])).toBe(3 * first);
    expect(tokenized()).toBe(calls);
  });

  it("a copy with the same metadata.id hits the cache (context managers hand out copies)", () => {
    const { counter, tokenized } = setup();
    const m: Message = { role: "user", content: [{ type: "text", text: "a b c" }], metadata: { id: "m-1" } };
    const first = counter.countMessage(m);
    const calls = tokenized();
    expect(counter.countMessage(structuredClone(m))).toBe(first);
    expect(counter.countMessage(JSON.parse(JSON.stringify(m)) as Message)).toBe(first);
    expect(tokenized()).toBe(calls);
  });

  it("counters sharing a tokenizer share the cache; countTokens-style recreation costs nothing", () => {
    const tokenizer = wordTokenizer();
    const m: Message = { role: "user", content: "x y", metadata: { id: "shared" } };
    getTokenCounter("gpt-4o", { tokenizer }).countMessage(m);
    const calls = tokenizer.calls.length;
    getTokenCounter("gpt-4.1", { tokenizer }).countMessage(structuredClone(m));
    expect(tokenizer.calls.length).toBe(calls);
  });

  it("another encoding (another tokenizer) counts on its own", () => {
    const a = wordTokenizer("enc-a");
    const b = wordTokenizer("enc-b");
    const m: Message = { role: "user", content: "x y" };
    getTokenCounter("gpt-4o", { tokenizer: a }).countMessage(m);
    getTokenCounter("gpt-4o", { tokenizer: b }).countMessage(m);
    expect(a.calls.length).toBeGreaterThan(0);
    expect(b.calls.length).toBe(a.calls.length);
  });

  it("the image rule is part of the key: the same message costs what each family charges", () => {
    const tokenizer = wordTokenizer();
    const m: Message = { role: "user", content: [{ type: "image", width: 1000, height: 1000 }] };
    expect(getTokenCounter("gpt-4o", { tokenizer }).countMessage(m)).toBe(4 + 765);
    expect(getTokenCounter("claude-sonnet-4", { tokenizer }).countMessage(m)).toBe(4 + 1334);
    expect(getTokenCounter("gpt-4o", { tokenizer }).countMessage(m)).toBe(4 + 765);
  });
});

describe("never a stale count", () => {
  it("a truncated copy with the same id is counted for what it is; both stay cached", () => {
    const { counter, tokenized } = setup();
    const full: Message = { role: "tool", tool_call_id: "c1", content: "w ".repeat(500).trim(), metadata: { id: "t-1" } };
    const truncated: Message = { ...full, content: "w w w [… 494 words cut …] w w w" };
    expect(counter.countMessage(full)).toBe(3 + 1 + 500 + 2);
    expect(counter.countMessage(truncated)).toBe(3 + 1 + 11 + 2);
    const calls = tokenized();
    // alternating between the stored message and its window copy never re-tokenizes
    for (let i = 0; i < 3; i++) {
      expect(counter.countMessage(structuredClone(full))).toBe(506);
      expect(counter.countMessage(structuredClone(truncated))).toBe(17);
    }
    expect(tokenized()).toBe(calls);
  });

  it("metadata changes alone keep the cached count (metadata is not counted)", () => {
    const { counter, tokenized } = setup();
    const m: Message = { role: "user", content: "a b", metadata: { id: "k" } };
    counter.countMessage(m);
    const calls = tokenized();
    m.metadata = { id: "k", critical: true, source: "hook" };
    expect(counter.countMessage(m)).toBe(6);
    expect(tokenized()).toBe(calls);
  });

  // Every value a count depends on, changed in place on the same object with the same id.
  const mutations: Array<[string, () => Message, (m: Message) => void]> = [
    ["string content", () => ({ role: "user", content: "a" }), (m) => { m.content = "a b"; }],
    ["role", () => ({ role: "user", content: "a" }), (m) => { m.role = "tool"; }],
    ["name", () => ({ role: "user", name: "a", content: "a" }), (m) => { m.name = "a b"; }],
    ["content to null", () => ({ role: "assistant", content: "a b" }), (m) => { m.content = null; }],
    ["a text block", () => ({ role: "user", content: [{ type: "text", text: "a" }] }), (m) => { (m.content as { text: string }[])[0]!.text = "a b"; }],
    ["a block added", () => ({ role: "user", content: [{ type: "text", text: "a" }] }), (m) => { (m.content as unknown[]).push({ type: "text", text: "b" }); }],
    ["image width", () => ({ role: "user", content: [{ type: "image", width: 512, height: 512 }] }), (m) => { (m.content as { width: number }[])[0]!.width = 1024; }],
    ["image height", () => ({ role: "user", content: [{ type: "image", width: 512, height: 512 }] }), (m) => { (m.content as { height: number }[])[0]!.height = 1024; }],
    ["image detail", () => ({ role: "user", content: [{ type: "image_url", image_url: { url: "u", detail: "low" }, width: 1024, height: 1024 }] }), (m) => { (m.content as { image_url: { detail: string } }[])[0]!.image_url.detail = "high"; }],
    ["tool_use input", () => ({ role: "assistant", content: [{ type: "tool_use", id: "t", name: "f", input: { q: "a" } }] }), (m) => { (m.content as { input: Record<string, string> }[])[0]!.input.q = "a b c"; }],
    ["tool_use name", () => ({ role: "assistant", content: [{ type: "tool_use", id: "t", name: "f", input: {} }] }), (m) => { (m.content as { name: string }[])[0]!.name = "f g"; }],
    ["tool_result text", () => ({ role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: [{ type: "text", text: "a" }] }] }), (m) => { ((m.content as { content: { text: string }[] }[])[0]!.content[0]!).text = "a b"; }],
    ["thinking", () => ({ role: "assistant", content: [{ type: "thinking", thinking: "a" }] }), (m) => { (m.content as { thinking: string }[])[0]!.thinking = "a b"; }],
    ["redacted data", () => ({ role: "assistant", content: [{ type: "redacted_thinking", data: "abcd" }] }), (m) => { (m.content as { data: string }[])[0]!.data = "abcdefgh"; }],
    ["an Anthropic compaction summary", () => ({ role: "assistant", content: [{ type: "compaction", provider: "anthropic", data: { type: "compaction", content: "a" } }] }), (m) => { (m.content as { data: { content: string } }[])[0]!.data.content = "a b c"; }],
    ["an OpenAI compaction's encrypted length", () => ({ role: "assistant", content: [{ type: "compaction", provider: "openai", data: { type: "compaction", encrypted_content: "abcd" } }] }), (m) => { (m.content as { data: { encrypted_content: string } }[])[0]!.data.encrypted_content = "abcdefghijkl"; }],
    ["tool call arguments", () => ({ role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "a" } }] }), (m) => { m.tool_calls![0]!.function.arguments = "a b"; }],
    ["a tool call added", () => ({ role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "a" } }] }), (m) => { m.tool_calls!.push({ id: "d", type: "function", function: { name: "f", arguments: "a" } }); }],
  ];
  for (const [what, make, mutate] of mutations) {
    it(`recounts when ${what} changes (same object, same id)`, () => {
      const { counter } = setup();
      const m = { ...make(), metadata: { id: "same" } } as Message;
      const before = counter.countMessage(m);
      mutate(m);
      const fresh = getTokenCounter("gpt-4o", { tokenizer: wordTokenizer() }).countMessage(m);
      expect(fresh).not.toBe(before);
      expect(counter.countMessage(m)).toBe(fresh);
      expect(counter.countMessage(structuredClone(m))).toBe(fresh);
    });
  }
});

describe("MessageTokenCache bounds", () => {
  const count = (m: Message) => (typeof m.content === "string" ? m.content.length : 0);

  it("holds at most `capacity` ids, forgetting the least recently used", () => {
    const cache = new MessageTokenCache(2);
    const msg = (id: string): Message => ({ role: "user", content: id, metadata: { id } });
    cache.getOrCount(msg("a"), count);
    cache.getOrCount(msg("b"), count);
    cache.getOrCount(msg("a"), count); // hit: a becomes the most recent
    cache.getOrCount(msg("c"), count); // evicts b
    expect(cache.stats).toMatchObject({ hits: 1, misses: 3, size: 2 });
    cache.getOrCount(msg("a"), count);
    expect(cache.stats.hits).toBe(2);
    cache.getOrCount(msg("b"), count);
    expect(cache.stats.misses).toBe(4);
  });

  it("keeps up to 4 variants per id, the oldest forgotten first", () => {
    const cache = new MessageTokenCache();
    const variant = (n: number): Message => ({ role: "user", content: "x".repeat(n), metadata: { id: "same" } });
    for (let n = 1; n <= 5; n++) cache.getOrCount(variant(n), count);
    expect(cache.stats.misses).toBe(5);
    for (let n = 2; n <= 5; n++) expect(cache.getOrCount(variant(n), count)).toBe(n);
    expect(cache.stats.hits).toBe(4);
    cache.getOrCount(variant(1), count);
    expect(cache.stats.misses).toBe(6);
  });

  it("a message that fails to count is not cached", () => {
    const cache = new MessageTokenCache();
    const m = { role: "user", content: "x", metadata: { id: "bad" } } as Message;
    expect(() => cache.getOrCount(m, () => { throw new Error("no"); })).toThrow("no");
    expect(cache.getOrCount(m, count)).toBe(1);
    expect(cache.stats).toMatchObject({ hits: 0, misses: 1 });
  });
});

describe("hot path", () => {
  it("recounting a cached 10,000-message history tokenizes nothing", () => {
    const { counter, tokenized } = setup();
    const history: Message[] = Array.from({ length: 10_000 }, (_, i) => ({
      role: i % 2 ? "assistant" : "user",
      content: [{ type: "text", text: `message ${i} `.repeat(20) }],
      metadata: { id: `m${i}` },
    }));
    const total = counter.countMessages(history);
    const calls = tokenized();
    for (let round = 0; round < 5; round++) expect(counter.countMessages(history)).toBe(total);
    // Nothing tokenized again (the cache answers); how fast that is, is the bench's to measure.
    expect(tokenized()).toBe(calls);
  });
});
