import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { childAgentContext, currentAgentContext, requireAgentContext, runWithAgentContext } from "../../core/index.js";
import { isAmplifierError, type TaskStore } from "../../contracts/index.js";
import { MemoryTaskStore } from "../../modules/store-tasks/index.js";

/**
 * The seed's ContextVars as an AsyncLocalStorage: set by the run, read deep in the call stack —
 * and the seed's warning, shown with a real HTTP server: a context set in serving code does not
 * reach the run a worker executes; set inside the run, it does.
 */

/** A tool as the seed's TaskManagerTool: writes to the current agent's board, or to "default" when it cannot tell. */
async function planTool(tasks: TaskStore, title: string): Promise<string> {
  await sleep(1); // a real tool awaits I/O before it writes
  const who = currentAgentContext() ?? { conversationId: "default", agentId: "default" };
  const list = (await tasks.getTaskList(who.conversationId, who.agentId)) ?? (await tasks.createTaskList({ conversationId: who.conversationId, agentId: who.agentId, tasks: [] }));
  await tasks.addTasks(list.id, [{ title }]);
  return `${who.conversationId}/${who.agentId}`;
}

describe("runWithAgentContext / currentAgentContext", () => {
  it("code the run calls reads the context across awaits, timers, setImmediate and Promise.all; outside the run there is none", async () => {
    const seen: unknown[] = [];
    expect(currentAgentContext()).toBeUndefined();
    await runWithAgentContext({ conversationId: "c1", agentId: "planner", label: "Planner" }, async () => {
      await sleep(2);
      seen.push(currentAgentContext()?.agentId);
      await new Promise<void>((resolve) => setImmediate(() => (seen.push(currentAgentContext()?.agentId), resolve())));
      await new Promise<void>((resolve) => setTimeout(() => (seen.push(currentAgentContext()?.label), resolve()), 3));
      const deep = async (n: number): Promise<string | undefined> => (n === 0 ? currentAgentContext()?.conversationId : (await sleep(0), deep(n - 1)));
      seen.push(...(await Promise.all([deep(5), deep(10)])));
    });
    expect(seen).toEqual(["planner", "planner", "Planner", "c1", "c1"]);
    expect(currentAgentContext()).toBeUndefined();
  });

  it("concurrent runs never see each other's context, however their awaits interleave", async () => {
    const run = (agentId: string) =>
      runWithAgentContext({ conversationId: "c", agentId }, async () => {
        const seen: string[] = [];
        for (let i = 0; i < 20; i++) {
          await sleep(Math.random() * 3);
          seen.push(currentAgentContext()!.agentId);
        }
        return seen;
      });
    const [a, b, c] = await Promise.all([run("a"), run("b"), run("c")]);
    expect(new Set(a)).toEqual(new Set(["a"]));
    expect(new Set(b)).toEqual(new Set(["b"]));
    expect(new Set(c)).toEqual(new Set(["c"]));
  });

  it("a sub-agent's run nests: childAgentContext keeps the conversation and names the parent; the parent's context is back afterwards", async () => {
    await runWithAgentContext({ conversationId: "c", agentId: "lead" }, async () => {
      const child = childAgentContext("researcher", "Researcher");
      expect(child).toEqual({ conversationId: "c", agentId: "researcher", label: "Researcher", parentAgentId: "lead" });
      await runWithAgentContext(child, async () => {
        await sleep(1);
        expect(currentAgentContext()).toEqual(child);
      });
      expect(currentAgentContext()!.agentId).toBe("lead");
    });
  });

  it("the context is validated and frozen; requireAgentContext outside a run says where to set it", () => {
    for (const bad of [undefined, {}, { conversationId: "c" }, { conversationId: "", agentId: "a" }, { conversationId: "c", agentId: "a", label: 3 }]) {
      expect(() => runWithAgentContext(bad as never, () => 1)).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
    }
    runWithAgentContext({ conversationId: "c", agentId: "a" }, () => {
      expect(Object.isFrozen(currentAgentContext())).toBe(true);
    });
    let error: unknown;
    try {
      requireAgentContext();
    } catch (caught) {
      error = caught;
    }
    expect(isAmplifierError(error, "INVALID_ARGUMENT")).toBe(true);
    expect(String((error as Error).message)).toContain("runWithAgentContext");
    expect(() => childAgentContext("x")).toThrow(/no agent context/);
  });
});

describe("the seed's warning: set the context inside the run, not in serving code", () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.close();
    server = undefined;
  });

  /**
   * The shape of the seed's server: request handlers (the SSE generator) hand jobs to a worker
   * loop started once, at server start (the Worker task that actually runs the agent). The
   * worker's async chain began at start-up, outside any request, so it carries start-up's context.
   */
  async function startServer(stampInside: boolean, tasks: TaskStore): Promise<{ post: (conversation: string, agent: string) => Promise<string> }> {
    const jobs: Array<{ conversationId: string; agentId: string; done: (where: string) => void }> = [];
    let wake: (() => void) | undefined;
    void (async function worker() {
      for (;;) {
        if (jobs.length === 0) await new Promise<void>((resolve) => (wake = resolve));
        const job = jobs.shift()!;
        const runAgent = () => planTool(tasks, `plan for ${job.agentId}`);
        // Right: the run stamps its own context from the job. Wrong: it relies on what the handler set.
        job.done(stampInside ? await runWithAgentContext({ conversationId: job.conversationId, agentId: job.agentId }, runAgent) : await runAgent());
      }
    })();
    server = createServer((request, response) => {
      const url = new URL(request.url ?? "/", "http://x");
      const conversationId = url.searchParams.get("conversation")!;
      const agentId = url.searchParams.get("agent")!;
      // The serving code "sets the ContextVar" for the whole request — around handing the job over.
      runWithAgentContext({ conversationId, agentId }, () => {
        expect(currentAgentContext()?.agentId).toBe(agentId); // visible here, in the handler…
        jobs.push({ conversationId, agentId, done: (where) => response.end(where) });
        wake?.();
      });
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const { port } = server.address() as AddressInfo;
    return { post: async (conversation, agent) => (await fetch(`http://127.0.0.1:${port}/run?conversation=${conversation}&agent=${agent}`, { method: "POST" })).text() };
  }

  it("set in the request handler, it never reaches the worker's run: every board lands on the default thread", async () => {
    const tasks = new MemoryTaskStore();
    const { post } = await startServer(false, tasks);
    expect(await Promise.all([post("t1", "alice"), post("t2", "bob")])).toEqual(["default/default", "default/default"]);
    // …not in the run: both agents' tasks are mixed on one board, theirs are empty.
    expect((await tasks.getTaskList("default", "default"))!.tasks.map((t) => t.title).sort()).toEqual(["plan for alice", "plan for bob"]);
    expect(await tasks.getTaskList("t1", "alice")).toBeUndefined();
  });

  it("set inside the run (from the job), each agent's task lands on its own board", async () => {
    const tasks = new MemoryTaskStore();
    const { post } = await startServer(true, tasks);
    expect(await Promise.all([post("t1", "alice"), post("t2", "bob")])).toEqual(["t1/alice", "t2/bob"]);
    expect((await tasks.getTaskList("t1", "alice"))!.tasks.map((t) => t.title)).toEqual(["plan for alice"]);
    expect((await tasks.getTaskList("t2", "bob"))!.tasks.map((t) => t.title)).toEqual(["plan for bob"]);
    expect(await tasks.getTaskList("default", "default")).toBeUndefined();
  });
});
