/**
 * A tool that writes a blob and a task under the current agent without being passed either.
 *
 * The session's config offers a blob store and a task store as capabilities ("stores" in
 * amplifier.config.json). The orchestrator's run stamps who is running with
 * runWithAgentContext({ conversationId, agentId, label }); the `save_report` tool, called by the
 * model with nothing but a title and a text, reads that context (currentAgentContext) and the
 * capabilities (requireStore), stores the report under
 * `agents/<agentId>/<conversationId>/<slug>.md` and puts "review <title>" on that agent's board.
 * A lead agent delegates to a researcher sub-agent (childAgentContext): each report and task lands
 * with the agent whose run called the tool. When the run ends, settleConversation turns tasks still
 * in progress into succeeded.
 *
 *   npm run build && node dist/examples/agent-stores-tool.js
 */
import { pathToFileURL } from "node:url";
import type { CoordinatorContract, Message, Tool, ToolCallPart, ToolResult } from "amplifier-ts";
import { createSession, forEachContentPart, runTool, type Session } from "amplifier-ts";
import { childAgentContext, requireAgentContext, requireStore, runWithAgentContext, type Task } from "amplifier-ts/stores";
import { ScriptedProvider } from "./scripted-provider.js";

/** The tool. It closes over the coordinator (as a tool module's mount does) and nothing else. */
export function saveReportTool(coordinator: CoordinatorContract): Tool {
  return {
    definition: {
      type: "function",
      function: {
        name: "save_report",
        description: "Save a report for review",
        parameters: { type: "object", properties: { title: { type: "string" }, text: { type: "string" } }, required: ["title", "text"] },
      },
    },
    async execute(input): Promise<ToolResult> {
      const { title, text } = input as { title: string; text: string };
      // Who is calling: set by the run, read here — no argument carries it.
      const { conversationId, agentId, label } = requireAgentContext();
      const key = `agents/${agentId}/${conversationId}/${title.toLowerCase().replace(/[^a-z0-9]+/g, "-")}.md`;
      const blobs = requireStore(coordinator, "blobs");
      await blobs.upload(key, new TextEncoder().encode(`# ${title}\n\n${text}\n\n— ${label ?? agentId}\n`), "text/markdown; charset=utf-8");
      const tasks = requireStore(coordinator, "tasks");
      const board = (await tasks.getTaskList(conversationId, agentId)) ?? (await tasks.createTaskList({ conversationId, agentId, tasks: [] }));
      const [task] = await tasks.addTasks(board.id, [{ title: `review ${title}`, maxRetries: 2 }]);
      await tasks.updateStatus(board.id, task!.id, "in_progress");
      return { output: `saved ${await blobs.presignUrl(key)}` };
    },
  };
}

const call = (id: string, title: string, text: string): Message => ({
  role: "assistant",
  content: "",
  tool_calls: [{ id, type: "function", function: { name: "save_report", arguments: JSON.stringify({ title, text }) } }],
});

/** One agent's loop: ask the model, run the tools it calls, until it answers. */
async function runAgent(session: Session, provider: ScriptedProvider, prompt: string): Promise<string> {
  const messages: Message[] = [{ role: "user", content: prompt }];
  const tools = Object.values(session.coordinator.get("tools")).map((tool) => tool.definition);
  for (;;) {
    const { message } = await provider.complete({ messages, tools });
    messages.push(message);
    const calls: ToolCallPart[] = [];
    forEachContentPart(message, { toolCall: (call) => void calls.push(call) });
    if (calls.length === 0) return typeof message.content === "string" ? message.content : "";
    for (const call of calls) {
      // tool:pre (hooks may deny) → execute → tool:post: the standard events, in the caller's agent context.
      const result = await runTool(session.coordinator, call);
      messages.push({ role: "tool", tool_call_id: call.id, content: result.output });
    }
  }
}

export interface AgentStoresRun {
  answers: { lead: string; researcher: string };
  /** Every stored report: key, content type and text. */
  reports: Array<{ key: string; contentType: string; text: string }>;
  /** Each agent's board after the run was settled. */
  boards: Record<string, Array<Pick<Task, "title" | "status">>>;
  settled: number;
}

export async function runAgentStoresExample(): Promise<AgentStoresRun> {
  const session = await createSession({
    session: { context: { module: "context-simple" } },
    stores: {
      blobs: { module: "store-blobs", config: { type: "memory" } },
      tasks: { module: "store-tasks", config: { type: "memory" } },
    },
  });
  try {
    await session.coordinator.mount("tools", saveReportTool(session.coordinator), "save_report");
    const lead = new ScriptedProvider([call("c1", "Plan", "Split the survey in two."), { role: "assistant", content: "Plan saved; research delegated." }]);
    const researcher = new ScriptedProvider([call("c2", "Sources", "Three papers, one dataset."), { role: "assistant", content: "Sources saved." }]);
    const conversationId = "conversation-42";

    // The orchestrator's run: the context is set here, inside the run — never in serving code.
    const answers = await runWithAgentContext({ conversationId, agentId: "lead", label: "Lead" }, async () => {
      const leadAnswer = await runAgent(session, lead, "Plan the survey.");
      // A sub-agent's run: same conversation, its own agent id, the lead as parent.
      const researcherAnswer = await runWithAgentContext(childAgentContext("researcher", "Researcher"), () => runAgent(session, researcher, "Find sources."));
      return { lead: leadAnswer, researcher: researcherAnswer };
    });

    const tasks = requireStore(session.coordinator, "tasks");
    const settled = await tasks.settleConversation(conversationId); // the run ended
    const blobs = requireStore(session.coordinator, "blobs");
    const reports = [];
    for (const key of [`agents/lead/${conversationId}/plan.md`, `agents/researcher/${conversationId}/sources.md`]) {
      const { data, contentType } = await blobs.download(key);
      reports.push({ key, contentType, text: new TextDecoder().decode(data) });
    }
    const boards: AgentStoresRun["boards"] = {};
    for (const agentId of ["lead", "researcher"]) {
      boards[agentId] = ((await tasks.getTaskList(conversationId, agentId))?.tasks ?? []).map(({ title, status }) => ({ title, status }));
    }
    return { answers, reports, boards, settled };
  } finally {
    await session.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const run = await runAgentStoresExample();
  for (const report of run.reports) console.log(`${report.key} (${report.contentType})\n${report.text}`);
  for (const [agent, tasks] of Object.entries(run.boards)) console.log(`${agent}: ${tasks.map((t) => `${t.title} [${t.status}]`).join(", ")}`);
}
