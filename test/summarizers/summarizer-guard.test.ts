import { describe, expect, it } from "vitest";
import type { Summarizer } from "../../contracts/compaction-strategy.js";
import { HookBus } from "../../core/hooks/index.js";
import { summarizeSafely, withSummarizerTimeout } from "../../modules/summarizers/index.js";

const message = [{ role: "user" as const, content: "x" }];

function busWithLog() {
  const hooks = new HookBus();
  const events: unknown[] = [];
  hooks.on("context:summary_failed", (data) => events.push(data));
  return { hooks, events };
}

describe("summarizeSafely", () => {
  it("returns the text of a working summarizer", async () => {
    const ok: Summarizer = { name: "ok", summarize: async () => "summary" };
    expect(await summarizeSafely(ok, message, { maxTokens: 10, strategy: "s" })).toEqual({ ok: true, text: "summary" });
  });

  it("turns a throw into a fallback and reports context:summary_failed", async () => {
    const { hooks, events } = busWithLog();
    const broken: Summarizer = { name: "broken", summarize: async () => { throw new Error("model overloaded"); } };
    const outcome = await summarizeSafely(broken, message, { maxTokens: 10, strategy: "summarization", hooks, dropped: 3 });
    expect(outcome).toMatchObject({ ok: false, code: "SUMMARIZER_FAILED", reason: "model overloaded" });
    expect(events).toEqual([{ strategy: "summarization", summarizer: "broken", reason: "model overloaded", code: "SUMMARIZER_FAILED", dropped: 3 }]);
  });

  it("treats empty text as a failure", async () => {
    const empty: Summarizer = { name: "empty", summarize: async () => "" };
    expect(await summarizeSafely(empty, message, { maxTokens: 10, strategy: "s" })).toMatchObject({ ok: false, code: "SUMMARIZER_FAILED" });
  });

  it("times out a hanging summarizer and aborts its signal", async () => {
    let seen: AbortSignal | undefined;
    const hanging: Summarizer = { name: "hanging", summarize: (_m, o) => { seen = o.signal; return new Promise(() => {}); } };
    const { hooks, events } = busWithLog();
    const outcome = await summarizeSafely(hanging, message, { maxTokens: 10, strategy: "s", hooks, timeoutMs: 20 });
    expect(outcome).toMatchObject({ ok: false, code: "SUMMARIZER_TIMEOUT" });
    expect(seen?.aborted).toBe(true);
    expect(events).toHaveLength(1);
  });

  it("rethrows when the request itself is aborted", async () => {
    const controller = new AbortController();
    const slow: Summarizer = { name: "slow", summarize: (_m, o) => new Promise((_, reject) => o.signal?.addEventListener("abort", () => reject(o.signal?.reason))) };
    const pending = summarizeSafely(slow, message, { maxTokens: 10, strategy: "s", signal: controller.signal });
    controller.abort(new Error("user cancelled"));
    await expect(pending).rejects.toThrow("user cancelled");
  });

  it("withSummarizerTimeout wraps a summarizer", async () => {
    const hanging: Summarizer = { name: "h", summarize: () => new Promise(() => {}) };
    await expect(withSummarizerTimeout(hanging, 10).summarize(message, { maxTokens: 5 })).rejects.toMatchObject({ code: "SUMMARIZER_TIMEOUT" });
  });
});
