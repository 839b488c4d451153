import { describe, expect, it } from "vitest";
import { runEphemeralStepsExample } from "../../examples/ephemeral-steps.js";

describe("examples/ephemeral-steps (Steamship: completed steps kept out of history)", () => {
  it("shows the steps to the model during the run, keeps only prompt + final answer afterwards", async () => {
    const { windowsDuringRun, historyAfterRun, nextWindow } = await runEphemeralStepsExample();
    expect(windowsDuringRun).toHaveLength(2);
    const second = windowsDuringRun[1]!;
    expect(second.some((m) => m.tool_calls?.length)).toBe(true);
    expect(second.at(-1)).toMatchObject({ role: "tool", content: expect.stringContaining("paid") });
    expect(historyAfterRun.map((m) => m.role)).toEqual(["system", "user", "assistant"]);
    expect(historyAfterRun.at(-1)!.content).toContain("status: paid");
    expect(historyAfterRun.some((m) => m.metadata?.ephemeral || m.metadata?.runId)).toBe(false);
    expect(nextWindow.map((m) => m.role)).toEqual(["system", "user", "assistant"]);
  });
});
