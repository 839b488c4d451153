import { createHash } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { stringify } from "safe-stable-stringify";
import type { Message } from "@amplifier-ts/contracts";
import type { HistoryStore } from "@amplifier-ts/contracts";
import { createHistoryStore } from "../../modules/stores.js";
import { forAgent, isValidAgentId, parseStoreUrl } from "@amplifier-ts/stores";
import { didYouMean } from "@amplifier-ts/core";
import { createError, isAmplifierError, validateMessage } from "@amplifier-ts/contracts";
import { CliUsageError, type CliCommand, type CliInvocation } from "../command.js";
import { formatTable } from "../format-table.js";

const DEFAULT_STORE = ".amplifier/sessions";
const ACTIONS = ["list", "show", "export", "import", "delete"] as const;
const READ_ONLY_ACTIONS: ReadonlySet<string> = new Set(["list", "show", "export"]);
type Action = (typeof ACTIONS)[number];

/**
 * `amplifier-ts sessions list|show|export|import|delete --store <url> [--agent <id>]`: look at
 * and move the sessions a HistoryStore holds (modules/stores/store-url.ts names the stores). Every
 * action works on one agent's sessions (HistoryStore contract v2): `--agent`, else the default
 * agent — the sessions of stores written before agents. `export --to` copies into the same agent.
 *
 * | action | does |
 * |---|---|
 * | `list` | every session: messages, bytes, last change |
 * | `show <session>` | one session as a table (or `--format jsonl`) |
 * | `export <session>` | the session as JSONL (a transcript `replay` reads) to stdout or `--out`; with `--to <url>` (or `--all --to <url>`) copied into another store |
 * | `import <file.jsonl> --session <id>` | a JSONL transcript into the store |
 * | `delete <session> --yes` | removes the session |
 *
 * Copies (import, export --to) are idempotent and verified: the target already holding the same
 * messages → "unchanged"; holding a prefix of them → the rest appended; holding something else →
 * refused unless `--replace`. Afterwards the target is read back and its count and content hash
 * (SHA-256 over the messages as canonical JSON, so key order inside a store — PostgreSQL jsonb
 * reorders keys — does not matter) must equal the source's, else exit 1.
 */
export const sessionsCommand: CliCommand = {
  name: "sessions",
  summary: "List, show, export, import and delete stored sessions (JSONL, PostgreSQL, Redis)",
  description: [
    "Works on the sessions of a history store, named by --store (default .amplifier/sessions, the",
    "embedded JSONL folder): postgres://…[?schema=s&table=t], redis://…[?keyPrefix=p], jsonl:<folder>",
    "or a folder path. Every action works on one agent's sessions: --agent <id>, else the default agent.",
    "",
    "  list                                  sessions with message counts, sizes, last change",
    "  show <session> [--format jsonl]       one session, as a table or as JSONL",
    "  export <session> [--out file]         the session as JSONL (replayable with `amplifier-ts replay`)",
    "  export <session>|--all --to <url>     copy into another store (idempotent, verified by count and hash)",
    "  import <file.jsonl> --session <id>    a JSONL transcript into the store (idempotent, verified)",
    "  delete <session> --yes                remove a session",
    "",
    "Examples:",
    "  amplifier-ts sessions list",
    "  amplifier-ts sessions list --agent planner",
    "  amplifier-ts sessions export --all --to postgres://127.0.0.1:5432/test",
    "  amplifier-ts sessions export s1 --store postgres://127.0.0.1/test --to jsonl:backup",
  ].join("\n"),
  arguments: [
    { name: "action", description: ACTIONS.join(" | "), optional: false },
    { name: "target", description: "session id (show, export, delete) or JSONL file (import)", optional: true },
  ],
  options: {
    store: { type: "string", placeholder: "url", description: `The store to work on (default ${DEFAULT_STORE})` },
    agent: { type: "string", placeholder: "id", description: "The agent whose sessions to work on (default: the default agent, \"default\"); export --to writes to the same agent" },
    to: { type: "string", placeholder: "url", description: "export: copy into this store instead of printing JSONL" },
    all: { type: "boolean", description: "export --to: every session of the store" },
    out: { type: "string", placeholder: "file", description: "export: write the JSONL here instead of stdout" },
    session: { type: "string", placeholder: "id", description: "import: the session to write (required)" },
    format: { type: "string", placeholder: "table|jsonl", description: "show: table (default) or jsonl" },
    replace: { type: "boolean", description: "import / export --to: replace a target session that holds other messages" },
    yes: { type: "boolean", description: "delete: confirm" },
  },
  run: sessions,
};

async function sessions(invocation: CliInvocation): Promise<number> {
  const { positionals, values, io } = invocation;
  const action = positionals[0];
  if (action === undefined) throw new CliUsageError(`missing the action: amplifier-ts sessions <${ACTIONS.join("|")}>`);
  if (!(ACTIONS as readonly string[]).includes(action)) {
    const hint = didYouMean(action, ACTIONS);
    throw new CliUsageError(`unknown action "${action}"${hint ? `; ${hint}` : ""} (expected one of ${ACTIONS.join(", ")})`);
  }
  const agent = agentOption(values.agent);
  // list, show and export only read --store: opening a session then writes nothing beside its file (no sidecar index).
  const store = openStore(stringOption(values.store) ?? DEFAULT_STORE, io.cwd, "--store", agent, READ_ONLY_ACTIONS.has(action));
  try {
    return await ACTION_RUNNERS[action as Action](store, invocation);
  } catch (error) {
    if (!isAmplifierError(error)) throw error;
    io.stderr.write(`error: ${error.message.startsWith(`[${error.code}]`) ? error.message : `[${error.code}] ${error.message}`}${error.details?.hint ? ` (hint: ${String(error.details.hint)})` : ""}\n`);
    return 1;
  } finally {
    await store.close();
  }
}

const ACTION_RUNNERS: Record<Action, (store: HistoryStore, invocation: CliInvocation) => Promise<number>> = {
  async list(store, { io, values }) {
    const sessions = await store.listSessions();
    io.stdout.write(formatTable(["SESSION", "MESSAGES", "BYTES", "UPDATED"], sessions.map((s) => [s.sessionId, String(s.count), s.bytes === undefined ? "-" : String(s.bytes), s.updatedAt ?? "-"])));
    const agent = agentOption(values.agent);
    io.stderr.write(`${sessions.length} session${sessions.length === 1 ? "" : "s"}${agent === undefined ? "" : ` of agent ${agent}`} in ${store.kind}\n`);
    return 0;
  },

  async show(store, { positionals, values, io }) {
    const sessionId = required(positionals[1], "show <session>");
    const format = stringOption(values.format) ?? "table";
    if (format !== "table" && format !== "jsonl") throw new CliUsageError(`--format expects table or jsonl, got "${format}"`);
    const messages = await store.read(sessionId);
    if (messages.length === 0) return missing(io, store, sessionId);
    if (format === "jsonl") {
      io.stdout.write(toJsonl(messages));
      return 0;
    }
    const rows = messages.map((m, i) => [String(i + 1), m.role, String(m.metadata?.id ?? "-"), String(m.metadata?.timestamp ?? "-"), preview(m)]);
    io.stdout.write(formatTable(["#", "ROLE", "ID", "TIME", "CONTENT"], rows));
    return 0;
  },

  async export(store, { positionals, values, io }) {
    const to = stringOption(values.to);
    const all = values.all === true;
    if (all && to === undefined) throw new CliUsageError("--all copies every session into another store: add --to <url>");
    if (all && positionals[1] !== undefined) throw new CliUsageError("give a session or --all, not both");
    if (to === undefined) {
      if (values.replace === true) throw new CliUsageError("--replace applies to copies into a store (--to)");
      const sessionId = required(positionals[1], "export <session>");
      const messages = await store.read(sessionId);
      if (messages.length === 0) return missing(io, store, sessionId);
      const out = stringOption(values.out);
      if (out === undefined) io.stdout.write(toJsonl(messages));
      else {
        await writeFile(resolve(io.cwd, out), toJsonl(messages));
        io.stderr.write(`wrote ${messages.length} messages of ${sessionId} to ${out} (sha256 ${contentHash(messages).slice(0, 16)})\n`);
      }
      return 0;
    }
    if (stringOption(values.out) !== undefined) throw new CliUsageError("--out writes a file; --to copies into a store: give one");
    const ids = all ? (await store.listSessions()).map((s) => s.sessionId) : [required(positionals[1], "export <session> --to <url>")];
    const target = openStore(to, io.cwd, "--to", agentOption(values.agent));
    try {
      const rows: string[][] = [];
      let failed = false;
      for (const sessionId of ids) {
        const messages = await store.read(sessionId);
        if (messages.length === 0 && !all) return missing(io, store, sessionId);
        const result = await copyInto(target, sessionId, messages, values.replace === true);
        failed ||= result.outcome === "conflict";
        rows.push([sessionId, String(messages.length), result.outcome, result.hash.slice(0, 16)]);
      }
      io.stdout.write(formatTable(["SESSION", "MESSAGES", "RESULT", "SHA256"], rows));
      if (failed) io.stderr.write("error: some sessions hold other messages in the target; nothing was changed for them (use --replace to overwrite)\n");
      return failed ? 1 : 0;
    } finally {
      await target.close();
    }
  },

  async import(store, { positionals, values, io }) {
    const file = required(positionals[1], "import <file.jsonl> --session <id>");
    const sessionId = stringOption(values.session);
    if (sessionId === undefined) throw new CliUsageError("import needs --session <id>: the session to write the messages to");
    const messages = await readJsonl(resolve(io.cwd, file), file);
    const result = await copyInto(store, sessionId, messages, values.replace === true);
    io.stdout.write(formatTable(["SESSION", "MESSAGES", "RESULT", "SHA256"], [[sessionId, String(messages.length), result.outcome, result.hash.slice(0, 16)]]));
    if (result.outcome === "conflict") io.stderr.write(`error: session ${sessionId} holds other messages in ${store.kind}; nothing was changed (use --replace to overwrite)\n`);
    return result.outcome === "conflict" ? 1 : 0;
  },

  async delete(store, { positionals, values, io }) {
    const sessionId = required(positionals[1], "delete <session> --yes");
    if (values.yes !== true) throw new CliUsageError(`deleting ${sessionId} cannot be undone: add --yes to confirm`);
    const count = await store.count(sessionId);
    if (count === 0) return missing(io, store, sessionId);
    await store.deleteSession(sessionId);
    io.stdout.write(`deleted ${sessionId} (${count} messages) from ${store.kind}\n`);
    return 0;
  },
};

/**
 * Would appending `tail` after `held` store every message? Appends skip a message whose id the
 * session holds (idempotent appends, HISTORY-STORES.md), so a source that repeats an id — data
 * written before they were idempotent — is copied with replace, which stores a list exactly.
 */
function appendKeepsAll(held: readonly Message[], tail: readonly Message[]): boolean {
  const ids = new Set(held.map((m) => m.metadata?.id));
  for (const message of tail) {
    const id = message.metadata?.id;
    if (typeof id !== "string" || id === "") continue;
    if (ids.has(id)) return false;
    ids.add(id);
  }
  return true;
}

export type CopyOutcome = "copied" | "appended" | "unchanged" | "replaced" | "conflict";

/**
 * Writes `messages` as session `sessionId` of `target`, idempotently, then verifies the target's
 * count and content hash against the source's (VERIFY_FAILED when they differ).
 */
export async function copyInto(target: HistoryStore, sessionId: string, messages: readonly Message[], replace: boolean): Promise<{ outcome: CopyOutcome; hash: string }> {
  const hash = contentHash(messages);
  const existing = await target.read(sessionId);
  let outcome: CopyOutcome;
  if (existing.length === 0) {
    if (messages.length > 0) await (appendKeepsAll([], messages) ? target.appendMany(sessionId, [...messages]) : target.replace(sessionId, [...messages]));
    outcome = "copied";
  } else if (existing.length === messages.length && contentHash(existing) === hash) {
    outcome = "unchanged";
  } else if (existing.length < messages.length && contentHash(existing) === contentHash(messages.slice(0, existing.length))) {
    const tail = messages.slice(existing.length);
    await (appendKeepsAll(existing, tail) ? target.appendMany(sessionId, tail) : target.replace(sessionId, [...messages]));
    outcome = "appended";
  } else if (replace) {
    await target.replace(sessionId, [...messages]);
    outcome = "replaced";
  } else {
    return { outcome: "conflict", hash };
  }
  const after = await target.read(sessionId);
  const afterHash = contentHash(after);
  if (after.length !== messages.length || afterHash !== hash) {
    throw createError("VERIFY_FAILED", `session ${sessionId} in ${target.kind} does not match its source after the copy`, {
      module: "cli",
      expected: `${messages.length} messages, sha256 ${hash}`,
      given: { count: after.length, sha256: afterHash },
    });
  }
  return { outcome, hash };
}

/** SHA-256 over the messages as canonical JSON (sorted keys), one per line. */
export function contentHash(messages: readonly Message[]): string {
  const hash = createHash("sha256");
  for (const m of messages) hash.update(`${stringify(m)}\n`);
  return hash.digest("hex");
}

/** The store the url names; with an agent, that agent's view of it (forAgent). */
function openStore(url: string, cwd: string, option: string, agent: string | undefined, readOnly = false): HistoryStore {
  try {
    const config = parseStoreUrl(url, cwd);
    const store = createHistoryStore(readOnly && config.type === "jsonl" ? { ...config, readOnly } : config);
    return agent === undefined ? store : forAgent(store, agent);
  } catch (error) {
    if (isAmplifierError(error)) throw new CliUsageError(`${option} ${url}: ${error.message}${error.details?.expected ? ` (expected ${String(error.details.expected)})` : ""}`);
    throw error;
  }
}

/**
 * Every non-blank line of a JSONL transcript as a Message, checked against the Message contract
 * (validateMessage, as `replay` and the context managers check it) before anything is written: the
 * first bad line is TRANSCRIPT_INVALID naming the file, the line, the message's id and the field.
 */
async function readJsonl(path: string, shown: string): Promise<Message[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw createError("INVALID_ARGUMENT", `cannot read ${shown}: ${(error as Error).message}`, { module: "cli", path: shown, expected: "a readable JSONL file" });
  }
  const messages: Message[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === "") continue;
    const where = `${shown} line ${i + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw createError("TRANSCRIPT_INVALID", `${where} is not JSON: ${(error as Error).message}`, { module: "cli", file: shown, path: `line ${i + 1}`, expected: "one JSON message per line" });
    }
    try {
      messages.push(validateMessage(value, ""));
    } catch (error) {
      if (!isAmplifierError(error)) throw error;
      const id = (value as { metadata?: { id?: unknown } } | null)?.metadata?.id;
      const field = String(error.details.path ?? "").replace(/^\./, "");
      const expected = String(error.details.expected ?? '{ "role": …, "content": … }');
      throw createError("TRANSCRIPT_INVALID", `${where}${typeof id === "string" ? ` (id ${JSON.stringify(id)})` : ""}: ${field === "" ? "" : `${field}: `}expected ${expected}`, {
        module: "cli",
        file: shown,
        path: `line ${i + 1}${field === "" ? "" : `.${field}`}`,
        expected,
        given: error.details.given,
        cause: error,
      });
    }
  }
  return messages;
}

function toJsonl(messages: readonly Message[]): string {
  return messages.map((m) => `${JSON.stringify(m)}\n`).join("");
}

function preview(message: Message): string {
  let text: string;
  if (typeof message.content === "string") text = message.content;
  else if (Array.isArray(message.content)) text = message.content.map((b) => ("text" in b && typeof b.text === "string" ? b.text : `[${b.type}]`)).join(" ");
  else text = "";
  if (message.tool_calls?.length) text = `${text} ${message.tool_calls.map((c) => `→ ${c.function?.name ?? "tool"}()`).join(" ")}`.trim();
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 72 ? `${flat.slice(0, 71)}…` : flat;
}

function missing(io: CliInvocation["io"], store: HistoryStore, sessionId: string): number {
  io.stderr.write(`error: no session ${sessionId} in ${store.kind} (amplifier-ts sessions list shows the sessions)\n`);
  return 1;
}

function required(value: string | undefined, usage: string): string {
  if (value === undefined || value === "") throw new CliUsageError(`missing an argument: amplifier-ts sessions ${usage}`);
  return value;
}

/** --agent, checked before any store is opened. */
function agentOption(value: string | boolean | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === "string" && isValidAgentId(value)) return value;
  throw new CliUsageError(`--agent ${String(value)}: expected an agent id of 1-128 characters of [A-Za-z0-9._-], not starting with a dot, without '..'`);
}

function stringOption(value: string | boolean | undefined): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}
