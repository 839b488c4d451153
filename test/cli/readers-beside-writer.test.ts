/**
 * The CLI's readers — `sessions list|show|export` and `replay`'s transcript — read a session its
 * agent is writing: no lock taken, nothing written beside it, a line still being written is not
 * there yet, and the agent resumes afterwards with no lock error (issue 24, item 7).
 */
import { appendFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Message } from "@amplifier-ts/contracts";
import { runCliCollecting } from "../support/run-cli-collecting.js";
import { JsonlStore } from "../../src/modules/stores.js";
import { readTranscript } from "../../src/replay/run-replay.js";
import { jsonlWriterChildren } from "../stores/support.js";

const conversation = (n: number): Message[] => Array.from({ length: n }, (_, i): Message => ({ role: i % 2 ? "assistant" : "user", content: `m ${i}`, metadata: { id: `m${i}` } }));

describe("CLI readers beside the session's writer", () => {
  const stores: JsonlStore[] = [];
  const temp = jsonlWriterChildren("cli-readers", () => Promise.all(stores.splice(0).map((s) => s.close().catch(() => undefined))));
  const store = () => {
    const s = new JsonlStore({ storagePath: join(temp.dir, "sessions"), fsync: "never" });
    stores.push(s);
    return s;
  };
  const cli = (...argv: string[]) => runCliCollecting(temp.dir, argv);

  it("sessions list, show and export read a session a writer process holds, and write nothing beside it", async () => {
    const seed = store();
    await seed.appendMany("s", conversation(3));
    await seed.close();
    const agent = temp.start(["hold", join(temp.dir, "sessions"), "s"]);
    expect(await agent.waitFor(/^(locked|refused)/)).toBe("locked");
    const folder = (await readdir(join(temp.dir, "sessions"))).sort();

    const show = await cli("sessions", "show", "s", "--store", "sessions");
    expect(show.stderr).toBe("");
    expect(show.code).toBe(0);
    expect(show.stdout).toContain("m 2");
    const list = await cli("sessions", "list", "--store", "sessions");
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/\bs\s+3\b/);
    const exported = await cli("sessions", "export", "s", "--store", "sessions");
    expect(exported.code).toBe(0);
    expect(exported.stdout.trim().split("\n")).toHaveLength(3);
    expect((await readdir(join(temp.dir, "sessions"))).sort()).toEqual(folder);
  });

  it("sessions show follows an in-process writer's appends, and the writer's successor resumes with no lock error", async () => {
    const agent = store();
    await agent.appendMany("s", conversation(2));
    expect((await cli("sessions", "show", "s", "--store", "sessions", "--format", "jsonl")).stdout.trim().split("\n")).toHaveLength(2);
    await agent.append("s", { role: "user", content: "late", metadata: { id: "late" } });
    const again = await cli("sessions", "show", "s", "--store", "sessions", "--format", "jsonl");
    expect(again.stdout).toContain('"late"');
    await agent.close();
    const successor = store();
    expect((await successor.open("s")).messages).toHaveLength(3);
  });

  it("replay's transcript reader skips a last line still being written (no newline, not yet JSON) and still refuses a broken line before it", async () => {
    const file = join(temp.dir, "t.jsonl");
    await appendFile(file, conversation(2).map((m) => `${JSON.stringify(m)}\n`).join(""));
    await appendFile(file, JSON.stringify(conversation(3)[2]).slice(0, 12));
    expect((await readTranscript(file)).messages.map((m) => m.content)).toEqual(["m 0", "m 1"]);
    await appendFile(file, "\n{not json\n");
    await expect(readTranscript(file)).rejects.toMatchObject({ code: "TRANSCRIPT_INVALID" });
  });
});
