/** Big inputs for the spill tests: a log with one line worth finding, built deterministically. */
import type { Message } from "../../contracts/generated/message.js";

/** The line a prompt about order ord-77123 should bring into the excerpt. */
export const NEEDLE = "2026-11-28T04:12:45.120Z ERROR payments worker-7 order ord-77123 failed: upstream gateway timeout after 30000 ms (504)";

/** About `bytes` of log lines, NEEDLE in the middle; ASCII, so characters = bytes. */
export function bigLog(bytes: number, needle: string = NEEDLE): string {
  const lines: string[] = [];
  let size = 0;
  let placed = false;
  for (let i = 0; size < bytes; i++) {
    const line =
      !placed && size >= bytes / 2
        ? needle
        : `2026-11-28T04:${String(Math.floor(i / 6000) % 60).padStart(2, "0")}:${String(Math.floor(i / 100) % 60).padStart(2, "0")}.${String(i % 1000).padStart(3, "0")}Z INFO api worker-${i % 16} request r-${String(i).padStart(7, "0")} served in ${(i * 7) % 97} ms`;
    if (line === needle) placed = true;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join("\n");
}

/** The messages of one tool round: prompt, the assistant's call, the result. */
export function toolRound(prompt: string, output: string, callId = "call_log", args = '{"path":"/var/log/app.log"}'): Message[] {
  return [
    { role: "user", content: prompt },
    { role: "assistant", content: "", tool_calls: [{ id: callId, type: "function", function: { name: "read_file", arguments: args } }] },
    { role: "tool", tool_call_id: callId, content: output },
  ];
}
