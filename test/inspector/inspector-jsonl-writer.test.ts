/**
 * The Inspector over a JSONL folder an agent is writing (`serve --sessions <folder>` opens it
 * readOnly): it shows the session while the agent holds it, pushes its new turns, lists its last
 * activity as the newest message's time (not the file's mtime), and never stands in the agent's
 * way — the agent's successor resumes the session with no lock error (issue 24, items 7 and 10).
 */
import { utimes } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Message } from "@amplifier-ts/contracts";
import { historyStoreSource, type InspectorSession, type InspectorSessionSummary } from "@amplifier-ts/inspector";
import { startServer, type RunningServer } from "@amplifier-ts/server";
import { JsonlStore } from "../../src/modules/stores.js";
import { jsonlWriterChildren } from "../stores/support.js";
import { readEventStream } from "../support/event-stream.js";

const message = (i: number, role: "user" | "assistant" = i % 2 ? "assistant" : "user"): Message => ({ role, content: `m ${i}`, metadata: { id: `m${i}`, timestamp: `2026-11-02T09:00:0${i}.000Z` } }) as Message;

describe("the Inspector beside a JSONL session's writer", () => {
  const closers: Array<() => Promise<unknown>> = [];
  const temp = jsonlWriterChildren("inspector-writer", async () => {
    for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
  });
  const agent = () => {
    const store = new JsonlStore({ storagePath: temp.dir, fsync: "never" });
    closers.push(() => store.close());
    return store;
  };
  const inspectorOver = async () => {
    const reader = new JsonlStore({ storagePath: temp.dir, readOnly: true });
    const server = await startServer({ port: 0, inspector: { sources: [historyStoreSource(reader)], pollMs: 50 } });
    closers.push(async () => {
      await server.close();
      await reader.close();
    });
    return server;
  };
  const json = async <T>(server: RunningServer, path: string): Promise<{ status: number; body: T }> => {
    const response = await fetch(`${server.url}${path}`);
    return { status: response.status, body: (await response.json()) as T };
  };

  it("shows a session its agent holds, pushes what the agent appends, and the agent's successor resumes it", async () => {
    const writer = agent();
    await writer.appendMany("chat", [message(0), message(1)]);
    const server = await inspectorOver();

    const first = await json<InspectorSession>(server, "/inspector/api/session?source=jsonl&id=chat&analysis=false");
    expect(first.status).toBe(200);
    expect(first.body.messages.map((m) => m.text)).toEqual(["m 0", "m 1"]);

    const response = await fetch(`${server.url}/inspector/api/live?source=jsonl&id=chat`);
    expect(response.status).toBe(200);
    const stream = readEventStream(response);
    await stream.until(/: live/);
    // The follower's first look sets its baseline; an append after it is a change.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await writer.append("chat", message(2));
    await stream.until(/event: changed\ndata: \{"messages":3\}/);
    await stream.cancel();
    const after = await json<InspectorSession>(server, "/inspector/api/session?source=jsonl&id=chat&analysis=false");
    expect(after.body.messages.map((m) => m.text)).toEqual(["m 0", "m 1", "m 2"]);

    await writer.close();
    const successor = agent();
    expect((await successor.open("chat")).messages).toHaveLength(3);
    await successor.append("chat", message(3));
  });

  it("an agent process opens a session the page has open (no lock held by the Inspector)", async () => {
    const seed = agent();
    await seed.appendMany("chat", [message(0), message(1)]);
    await seed.close();
    const server = await inspectorOver();
    expect((await json<InspectorSession>(server, "/inspector/api/session?source=jsonl&id=chat&analysis=false")).status).toBe(200);
    const writer = temp.start(["hold", temp.dir, "chat"]);
    expect(await writer.waitFor(/^(locked|refused)/)).toBe("locked");
  });

  it("lists the last activity as the newest message's time, not the file's modification time", async () => {
    const seed = agent();
    await seed.appendMany("chat", [message(0), message(1), message(2)]);
    await seed.close();
    await utimes(join(temp.dir, "chat.jsonl"), new Date("2030-01-01T00:00:00Z"), new Date("2030-01-01T00:00:00Z"));
    const server = await inspectorOver();
    const { body } = await json<{ sessions: InspectorSessionSummary[] }>(server, "/inspector/api/sessions");
    expect(body.sessions).toEqual([expect.objectContaining({ source: "jsonl", sessionId: "chat", messages: 3, lastActivity: "2026-11-02T09:00:02.000Z" })]);
  });
});
