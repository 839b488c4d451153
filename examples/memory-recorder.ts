/**
 * The memory recorder on a real agent loop: the minimal orchestrator runs with
 * `"memory": { "module": "memory-local" }` and the `memory-recorder` hook, then the session's
 * memory holds the loop's events — the user's prompt, the tool call and its result, the answer —
 * and a sub-agent is started with the parent's conversation as context (startDelegation).
 *
 *   npm run build && node dist/examples/memory-recorder.js
 */
import { pathToFileURL } from "node:url";
import type { Memory } from "amplifier-ts";
import { MEMORY_CAPABILITY } from "amplifier-ts";
import { finishDelegation, startDelegation } from "amplifier-ts/memory";
import { runMinimalOrchestrator } from "./minimal-orchestrator.js";

export interface RecordedRun {
  sessionId: string;
  /** `eventType: content` per recorded event, oldest first. */
  log: string[];
  /** What the sub-agent was given as context. */
  delegationContext: string;
  childLog: string[];
}

export async function runRecordedLoop(): Promise<RecordedRun> {
  let run: RecordedRun | undefined;
  await runMinimalOrchestrator({
    memory: { module: "memory-local", config: { maxEventsPerSession: 100 } },
    setup: ({ coordinator }) => {
      // Cleanups run newest first: this one reads the memory before the memory module closes it.
      coordinator.registerCleanup(async () => {
        const memory = coordinator.getCapability<Memory>(MEMORY_CAPABILITY)!;
        // The recorder files under the session id the context keeps the history under.
        const sessionId = coordinator.get("context")?.sessionId ?? coordinator.sessionId;
        const { childSessionId, context } = await startDelegation(memory, { parentSessionId: sessionId, agent: "checker", task: "double-check the product" });
        await finishDelegation(memory, { parentSessionId: sessionId, childSessionId, agent: "checker", response: "37 × 43 = 1591 is right." });
        const show = (e: { eventType: string; content: unknown }) => `${e.eventType}: ${typeof e.content === "string" ? e.content : JSON.stringify(e.content)}`;
        run = {
          sessionId,
          log: (await memory.getSessionEvents(sessionId)).map(show),
          delegationContext: context,
          childLog: (await memory.getSessionEvents(childSessionId)).map(show),
        };
      });
    },
  });
  if (run === undefined) throw new Error("the session had no memory");
  return run;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const run = await runRecordedLoop();
  console.log(`memory of session ${run.sessionId}:`);
  for (const line of run.log) console.log(`  ${line}`);
  console.log(`sub-agent context:\n${run.delegationContext}`);
}
