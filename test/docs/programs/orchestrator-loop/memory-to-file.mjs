import { writeFile } from "node:fs/promises";

// Writes what the memory holds to ./memory.json once the prompt is complete, so a test can look
// at it after the program ended (memory-local keeps nothing on disk). Runs after the recorder
// (priority 1000), which has then filed the answer.
export function mount(coordinator) {
  return coordinator.hooks.register(
    "prompt:complete",
    async () => {
      const memory = coordinator.getCapability("memory");
      const sessions = {};
      for (const id of await memory.listSessions()) sessions[id] = (await memory.getSessionEvents(id)).map((e) => ({ eventType: e.eventType, content: e.content }));
      const context = coordinator.get("context");
      await writeFile("memory.json", JSON.stringify({ contextSessionId: context.sessionId, coordinatorSessionId: coordinator.sessionId, sessions }, null, 2));
      return undefined;
    },
    { name: "memory-to-file", priority: 2_000 },
  );
}
