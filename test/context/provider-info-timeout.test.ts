/**
 * Issue 14, item 7 (second half): `provider.getInfo()` is raced against the context option
 * `providerInfoTimeoutMs`; a provider that never answers fails the request with PROVIDER_TIMEOUT
 * (naming the provider and the time waited) instead of hanging it forever, and the timer is
 * cleared as soon as getInfo settles.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Provider, ProviderInfo } from "../../contracts/index.js";
import { HistoryContextManager } from "../../modules/context-manager/history-context-manager.js";

const INFO: ProviderInfo = { id: "fake", defaults: { model: "gpt-4o", context_window: 8_000, max_output_tokens: 1_000 } } as ProviderInfo;

async function manager(options: Record<string, unknown> = {}) {
  const context = new HistoryContextManager({ moduleName: "context-simple", options });
  await context.addMessage({ role: "user", content: "hello" });
  return context;
}

afterEach(() => {
  vi.useRealTimers();
});

describe("provider.getInfo() has a timeout", () => {
  it("a provider that never answers fails with PROVIDER_TIMEOUT naming the provider and the time waited", async () => {
    const context = await manager({ providerInfoTimeoutMs: 20 });
    const silent = { id: "silent-llm", getInfo: () => new Promise<ProviderInfo>(() => {}) } as Provider;
    const error = await context.getMessagesForRequest(undefined, silent).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: "PROVIDER_TIMEOUT", details: { provider: '"silent-llm"', timeoutMs: 20, path: "provider.getInfo()" } });
    expect((error as Error).message).toContain('provider "silent-llm" did not answer getInfo() within 20 ms');
  });

  it("names a provider without an id by its class", async () => {
    class HangingProvider {
      getInfo(): Promise<ProviderInfo> {
        return new Promise(() => {});
      }
    }
    const context = await manager({ providerInfoTimeoutMs: 5 });
    await expect(context.getMessagesForRequest(undefined, new HangingProvider())).rejects.toMatchObject({
      code: "PROVIDER_TIMEOUT",
      details: { provider: "(class HangingProvider)", timeoutMs: 5 },
    });
  });

  it("clears its timer when getInfo settles, answered or thrown; a prompt answer is used as before", async () => {
    vi.useFakeTimers();
    const context = await manager({ providerInfoTimeoutMs: 60_000 });
    const before = vi.getTimerCount();
    const window = await context.getMessagesForRequest(undefined, { getInfo: async () => INFO });
    expect(window.map((m) => m.content)).toEqual(["hello"]);
    expect(vi.getTimerCount()).toBe(before);
    await expect(context.getMessagesForRequest(undefined, { getInfo: async () => Promise.reject(new Error("offline")) })).rejects.toMatchObject({ code: "INVALID_PROVIDER_INFO" });
    expect(vi.getTimerCount()).toBe(before);
  });

  it("the option defaults to 10 s and is validated: INVALID_MODULE_CONFIG naming config.providerInfoTimeoutMs", async () => {
    expect(new HistoryContextManager({ moduleName: "context-simple" }).options.providerInfoTimeoutMs).toBe(10_000);
    for (const bad of [0, -1, 1.5, "10s", 600_001]) {
      expect(() => new HistoryContextManager({ moduleName: "context-simple", options: { providerInfoTimeoutMs: bad } as never })).toThrow(
        expect.objectContaining({ code: "INVALID_MODULE_CONFIG", path: "config.providerInfoTimeoutMs" }),
      );
    }
  });
});
