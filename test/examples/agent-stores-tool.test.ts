import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { runAgentStoresExample } from "../../examples/agent-stores-tool.js";

describe("examples/agent-stores-tool: a tool writes a blob and a task under the current agent, passed neither", () => {
  it("each agent's report and review task land with the agent whose run called the tool; the run's end settles the tasks", async () => {
    const run = await runAgentStoresExample();
    expect(run.answers).toEqual({ lead: "Plan saved; research delegated.", researcher: "Sources saved." });
    expect(run.reports).toEqual([
      { key: "agents/lead/conversation-42/plan.md", contentType: "text/markdown; charset=utf-8", text: "# Plan\n\nSplit the survey in two.\n\n— Lead\n" },
      { key: "agents/researcher/conversation-42/sources.md", contentType: "text/markdown; charset=utf-8", text: "# Sources\n\nThree papers, one dataset.\n\n— Researcher\n" },
    ]);
    expect(run.boards).toEqual({ lead: [{ title: "review Plan", status: "succeeded" }], researcher: [{ title: "review Sources", status: "succeeded" }] });
    expect(run.settled).toBe(2);
  });

  it("runs as a program from the build (dist/examples)", () => {
    const out = execFileSync(process.execPath, ["dist/examples/agent-stores-tool.js"], { encoding: "utf8", timeout: 60_000 });
    expect(out).toContain("agents/researcher/conversation-42/sources.md (text/markdown; charset=utf-8)");
    expect(out).toContain("lead: review Plan [succeeded]");
  });
});
