import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AmplifierEvents } from "../../contracts/index.js";
import { Coordinator } from "../../core/index.js";
import { brokenProvider, FLAVOURS, plainAnswer, startBrokenApiServer, type BrokenApiServer } from "./broken-api-server.js";
import type { Api } from "./fake-api-server.js";

/**
 * Usage figures are checked where they enter (provider-kit's checkUsage): only non-negative safe
 * integers reach ChatResponse.usage and provider:response. A bad report drops the usage — the
 * answer itself stands — and says so in provider:usage_invalid, one event per bad figure.
 */
let server: BrokenApiServer;
beforeAll(async () => {
  server = await startBrokenApiServer();
});
afterAll(() => server.close());

/** The API's names of the input and output figures. */
const NAMES: Record<Api, [string, string]> = { chat: ["prompt_tokens", "completion_tokens"], responses: ["input_tokens", "output_tokens"], anthropic: ["input_tokens", "output_tokens"] };

async function callWith(api: Api, usage: unknown) {
  server.answer = (a, res) => { res.writeHead(200, { "content-type": "application/json" }); res.end(plainAnswer(a, usage)); };
  const coordinator = new Coordinator();
  const invalid: AmplifierEvents["provider:usage_invalid"][] = [];
  const responses: AmplifierEvents["provider:response"][] = [];
  coordinator.hooks.register("provider:usage_invalid", (data) => void invalid.push(data));
  coordinator.hooks.register("provider:response", (data) => void responses.push(data));
  const response = await brokenProvider(api, server, coordinator).complete({ messages: [{ role: "user", content: "hi" }] });
  return { response, invalid, responses };
}

describe.each(FLAVOURS)("$provider: usage figures", ({ api, provider, model }) => {
  const [input, output] = NAMES[api];

  it("sane figures pass as they are", async () => {
    const { response, invalid } = await callWith(api, { [input]: 10, [output]: 2 });
    expect(response.usage).toEqual({ inputTokens: 10, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 });
    expect(invalid).toEqual([]);
  });

  it.each([
    ["negative and absurd", { [input]: -5, [output]: 1e308 }, [[`usage.${input}`, -5], [`usage.${output}`, 1e308]]],
    ["strings", { [input]: "10", [output]: "2" }, [[`usage.${input}`, "10"], [`usage.${output}`, "2"]]],
    ["a fraction and a missing one", { [input]: 2.5 }, [[`usage.${input}`, 2.5], [`usage.${output}`, undefined]]],
    ["no usage at all", undefined, [["usage", undefined]]],
  ] as const)("%s: the answer stands without usage, each bad figure reported", async (_name, usage, bad) => {
    const { response, invalid, responses } = await callWith(api, usage);
    expect(JSON.stringify(response.message.content)).toContain("hi");
    expect(response.usage).toBeUndefined();
    expect(responses).toHaveLength(1);
    expect(responses[0]).not.toHaveProperty("usage");
    expect(invalid).toEqual(bad.map(([field, given]) => ({ provider, model, field, given, expected: expect.any(String) })));
  });
});

describe("provider-anthropic: the input figure is a sum of checked numbers", () => {
  it("input_tokens \"10\" is reported, never concatenated into \"1000\"", async () => {
    const { response, invalid } = await callWith("anthropic", { input_tokens: "10", output_tokens: 2, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });
    expect(response.usage).toBeUndefined();
    expect(invalid).toEqual([expect.objectContaining({ field: "usage.input_tokens", given: "10" })]);
  });

  it("cache figures the API sends as null count as 0", async () => {
    const { response, invalid } = await callWith("anthropic", { input_tokens: 10, output_tokens: 2, cache_read_input_tokens: null, cache_creation_input_tokens: null });
    expect(response.usage).toEqual({ inputTokens: 10, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 });
    expect(invalid).toEqual([]);
  });

  it("a sum past the safe integers is reported on the bill's own field", async () => {
    const { response, invalid } = await callWith("anthropic", { input_tokens: Number.MAX_SAFE_INTEGER, output_tokens: 2, cache_read_input_tokens: 5 });
    expect(response.usage).toBeUndefined();
    expect(invalid).toEqual([expect.objectContaining({ provider: "anthropic", field: "inputTokens" })]);
  });
});
