/**
 * Hook turn notes: stored injections made after the session started (prompt:submit, tool:post …)
 * belong to their turn — in stored order, counted and cut with it — instead of being hoisted and
 * kept forever as instructions. Injections at session:start / session:resume stay instructions.
 */
import { describe, expect, it } from "vitest";
import type { Message } from "../../contracts/generated/message.js";
import { Coordinator } from "../../core/coordinator.js";
import { mount as mountSimple } from "../../modules/context-simple/index.js";

async function session() {
  const coordinator = new Coordinator();
  const context = await mountSimple(coordinator, {});
  let turn = 0;
  coordinator.hooks.register("prompt:submit", () => ({ action: "inject_context", context_injection: `Todo reminder for turn ${turn}: ` + "keep the tests green. ".repeat(6) }), { name: "todo-reminder" });
  coordinator.hooks.register("tool:post", () => ({ action: "inject_context", context_injection: `Lint after turn ${turn}: 0 errors, 2 warnings in src/a.ts` }), { name: "linter" });
  /** One agent turn as the orchestrators run it: prompt:submit injections, the prompt, an answer, tool:post injections. */
  const runTurn = async (prompt = `Question ${turn + 1}: what next?`) => {
    turn++;
    const submitted = await coordinator.hooks.emit("prompt:submit", { prompt });
    await coordinator.processHookResult(submitted, "prompt:submit", submitted.decidedBy ?? "test");
    await context.addMessage({ role: "user", content: prompt });
    await context.addMessage({ role: "assistant", content: `Answer ${turn}. ` + "Done. ".repeat(10) });
    const post = await coordinator.hooks.emit("tool:post", { tool: "bash", input: {}, result: { success: true, output: "" } } as never);
    await coordinator.processHookResult(post, "tool:post", post.decidedBy ?? "test");
  };
  return { coordinator, context, runTurn };
}

const text = (m: Message) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content));

describe("hook turn notes", () => {
  it("a hook that stores a system note every turn: 1,000 turns at a small budget, every window fits and holds the recent conversation", async () => {
    const { context, runTurn } = await session();
    for (let i = 0; i < 1000; i++) {
      await runTurn();
      if (i % 50 !== 49) continue;
      const window = await context.getMessagesForRequest(2_000);
      const conversation = window.filter((m) => m.role === "user" || m.role === "assistant");
      expect(conversation.length).toBeGreaterThan(4);
      expect(text(window.at(-1)!)).toContain(`Lint after turn ${i + 1}`);
      // Notes sit with their turn, in stored order: the newest prompt's reminder right before it.
      const lastUser = window.findLastIndex((m) => m.role === "user");
      expect(text(window[lastUser - 1]!)).toContain(`Todo reminder for turn ${i + 1}`);
    }
  }, 60_000);
});
