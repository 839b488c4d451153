/**
 * Seeded, realistic histories of a tool-using coding agent, for the benchmark.
 *
 * The size distribution follows examples/sample-session.jsonl (≈ 2.8 KB of JSON per message on
 * average): short user requests, assistant turns that call read_file / grep / run_tests /
 * edit_file / bash, file-sized tool results (median ≈ 1.5 KB) and now and then a very large test
 * log (≈ 150 KB). Most steps use the OpenAI style (assistant.tool_calls + role "tool" messages);
 * a share uses Anthropic blocks (assistant tool_use blocks, sometimes after a thinking block, and
 * one user message with the tool_result blocks). About one step in 600 messages is a crash in the
 * middle of a tool call: the call has no result and the next message is a new user request.
 *
 * `generateHistory({ count })` returns exactly `count` messages. The same seed gives the same
 * contents; `idPrefix` only changes ids (message ids and tool-call ids), so two runs can use the
 * same contents without sharing token-cache entries keyed by message id.
 */
import type { ContentBlock, Message, ToolCall } from "../../contracts/generated/message.js";

export interface HistoryOptions {
  /** Exactly this many messages. */
  count: number;
  /** PRNG seed: same seed, same contents. */
  seed?: number;
  /** Prefix of every message id and tool-call id (unique per run). */
  idPrefix?: string;
  /** Start with the (critical) system prompt. Default true; false for a continuation stream. */
  withSystem?: boolean;
  /** Share of tool steps written with Anthropic blocks. Default 0.15. */
  anthropicShare?: number;
  /** A crash mid-tool about once per this many messages (0 = never). Default 600. */
  crashEvery?: number;
  /** ISO time of the first message. */
  startAt?: string;
}

const FILES = [
  "src/invoices/create-invoice.ts", "src/invoices/apply-discount.ts", "src/invoices/tax-rules.ts",
  "src/invoices/render-pdf.ts", "src/customers/customer-repository.ts", "src/customers/merge-duplicates.ts",
  "src/customers/vat-lookup.ts", "src/http/routes.ts", "src/http/validate-request.ts", "src/http/auth-middleware.ts",
  "src/payments/stripe-webhook.ts", "src/payments/retry-policy.ts", "src/payments/refunds.ts",
  "src/reports/monthly-revenue.ts", "src/reports/aging-buckets.ts", "src/db/migrations/0007_invoice_currency.sql",
  "src/db/migrations/0008_customer_terms.sql", "src/db/pool.ts", "src/util/money.ts", "src/util/dates.ts",
];
const IDENTS = [
  "invoiceTotal", "lineItems", "discountRate", "customerId", "currencyCode", "taxBracket", "roundHalfEven",
  "retryAfterMs", "webhookSecret", "dueDate", "issuedAt", "vatNumber", "paymentIntent", "refundAmount",
  "agingBucket", "paymentTerms", "minorUnits", "exchangeRate", "creditNote", "idempotencyKey",
];
const REQUESTS = [
  "The monthly revenue report double-counts refunded invoices. Can you find out why and fix it?",
  "Add support for invoices in JPY: they have no minor units, so rounding must change.",
  "The stripe webhook sometimes times out under load. Make the retry policy exponential with jitter.",
  "Customers with the same VAT number should be merged. Write merge-duplicates and tests for it.",
  "Tax rules for Germany changed: the reduced rate of 7% applies to books. Update tax-rules.ts.",
  "Please run the whole test suite and tell me what is failing.",
  "Rename `invoiceTotal` to `grossTotal` everywhere, including the SQL migration comments.",
  "The request validator accepts negative quantities. Reject them with a 422 and a clear message.",
  "Can you add a `dueDate` default of 30 days after issue, configurable per customer?",
  "Explain how apply-discount interacts with tax: is the discount applied before or after VAT?",
  "Aging buckets are off by one day around DST changes. Please investigate dates.ts.",
  "Add an idempotency key to the refund endpoint so retries do not refund twice.",
];
const THOUGHTS = [
  "Let me look at the current implementation first.",
  "I'll check where this identifier is used before changing it.",
  "Running the tests to see the current state.",
  "The failure points at the rounding step; reading money.ts.",
  "Applying the change and re-running the affected tests.",
  "Two call sites still use the old helper; updating both.",
];
const TOOLS = ["read_file", "grep", "run_tests", "edit_file", "bash"] as const;
type ToolName = (typeof TOOLS)[number];

/** mulberry32: a small, fast, seedable PRNG (uniform in [0, 1)). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function generateHistory(options: HistoryOptions): Message[] {
  const count = options.count;
  if (!Number.isInteger(count) || count < 0) throw new RangeError(`count must be a non-negative integer, got ${count}`);
  const rand = seededRandom(options.seed ?? 20261122);
  const prefix = options.idPrefix ?? "h";
  const anthropicShare = options.anthropicShare ?? 0.15;
  const crashEvery = options.crashEvery ?? 600;
  const t0 = Date.parse(options.startAt ?? "2026-11-02T09:00:00Z");
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const between = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));

  const out: Message[] = [];
  let callSeq = 0;
  const push = (message: Message) => {
    const n = out.length;
    out.push({ ...message, metadata: { ...message.metadata, id: `${prefix}-${n + 1}`, timestamp: new Date(t0 + n * 7_000).toISOString() } });
  };
  const room = () => count - out.length;

  if ((options.withSystem ?? true) && count > 0) {
    push({
      role: "system",
      content:
        "You are a senior engineer pair-programming on `ledgerly`, a TypeScript invoicing service (Node 20, PostgreSQL). " +
        "Work in small verified steps: read before you edit, run the tests after every change, never commit secrets. " +
        "Money is stored as integer minor units; always round half-even. The user prefers concise answers with file paths. " +
        "Project conventions: kebab-case files, one export per file, vitest for tests, zod for request validation.",
      metadata: { critical: true },
    });
  }

  while (room() > 0) {
    const request = pick(REQUESTS);
    push({ role: "user", content: rand() < 0.3 ? `${request} Also keep an eye on ${pick(FILES)}.` : request });
    const steps = between(2, 7);
    let crashed = false;
    for (let s = 0; s < steps; s++) {
      const anthropic = rand() < anthropicShare;
      const parallel = rand() < 0.2 ? 2 : 1;
      const results = anthropic ? 1 : parallel;
      // Keep room for the results and the closing answer, so the history never ends half-paired.
      if (room() < 1 + results + 1) break;
      const calls = Array.from({ length: parallel }, () => makeCall(pick(TOOLS)));
      const crash = crashEvery > 0 && rand() < 2.5 / crashEvery;
      if (anthropic) {
        const content: ContentBlock[] = [];
        if (rand() < 0.3) content.push({ type: "thinking", thinking: thinking(), signature: signature() });
        if (rand() < 0.6) content.push({ type: "text", text: pick(THOUGHTS) });
        for (const c of calls) content.push({ type: "tool_use", id: c.id.replace("call_", "toolu_"), name: c.name, input: c.args });
        push({ role: "assistant", content });
        if (crash) {
          crashed = true;
          break;
        }
        push({
          role: "user",
          content: calls.map((c) => ({
            type: "tool_result" as const,
            tool_use_id: c.id.replace("call_", "toolu_"),
            content: c.result,
            ...(c.error ? { is_error: true } : {}),
          })),
        });
      } else {
        const toolCalls: ToolCall[] = calls.map((c) => ({
          id: c.id,
          type: "function",
          function: { name: c.name, arguments: JSON.stringify(c.args) },
        }));
        push({ role: "assistant", content: rand() < 0.5 ? pick(THOUGHTS) : null, tool_calls: toolCalls });
        if (crash) {
          crashed = true;
          break;
        }
        for (const c of calls) push({ role: "tool", tool_call_id: c.id, name: c.name, content: c.result });
      }
    }
    if (crashed || room() === 0) continue;
    push({ role: "assistant", content: summaryOfWork(request) });
  }
  return out;

  function makeCall(tool: ToolName) {
    const id = `call_${prefix}_${(++callSeq).toString(36)}`;
    const file = pick(FILES);
    let args: Record<string, unknown>;
    let result: string;
    let error = false;
    switch (tool) {
      case "read_file":
        args = { path: file };
        result = sourceFile(file, between(40, 260));
        break;
      case "grep":
        args = { pattern: pick(IDENTS), path: "src" };
        result = Array.from({ length: between(3, 40) }, () => `${pick(FILES)}:${between(1, 400)}:  ${codeLine()}`).join("\n");
        break;
      case "run_tests": {
        args = rand() < 0.5 ? { command: "npx vitest run" } : { command: "npx vitest run", filter: pick(FILES).split("/")[1] };
        const huge = rand() < 0.04;
        result = testLog(huge ? between(1500, 2500) : between(8, 80));
        break;
      }
      case "edit_file":
        args = { path: file, old: codeLine(), new: codeLine() };
        error = rand() < 0.05;
        result = error ? `Error: old string not found in ${file}` : `Edited ${file}: 1 hunk, +${between(1, 12)} -${between(1, 9)}`;
        break;
      default:
        args = { command: pick(["git status --short", "git diff --stat", "npm run lint", "psql -p 55432 ledgerly_stg -c '\\d invoices'"]) };
        result = Array.from({ length: between(1, 25) }, () => `${pick([" M", "??", " D"])} ${pick(FILES)}`).join("\n");
    }
    return { id, name: tool, args, result, error };
  }

  function sourceFile(path: string, lines: number): string {
    const body: string[] = [`// ${path}`, `import { z } from "zod";`, `import { roundHalfEven } from "../util/money.js";`, ""];
    while (body.length < lines) {
      body.push(`export function ${pick(IDENTS)}For${pick(["Invoice", "Customer", "Line", "Payment"])}(input: ${pick(["Invoice", "LineItem[]", "Customer"])}) {`);
      for (let i = between(2, 9); i > 0; i--) body.push(`  ${codeLine()}`);
      body.push("}", "");
    }
    return body.join("\n");
  }

  function codeLine(): string {
    const a = pick(IDENTS);
    const b = pick(IDENTS);
    switch (between(0, 5)) {
      case 0: return `const ${a} = roundHalfEven(${b} * ${(rand() * 2).toFixed(3)});`;
      case 1: return `if (${a} < 0) throw new RangeError("${a} must not be negative");`;
      case 2: return `return { ...${b}, ${a}: ${between(0, 9999)} };`;
      case 3: return `await db.query("UPDATE invoices SET ${a.toLowerCase()} = $1 WHERE id = $2", [${b}, id]);`;
      case 4: return `// TODO(${pick(["dana", "sam", "li"])}): handle ${a} when ${b} is missing`;
      default: return `expect(${a}(${between(1, 500)})).toBe(${between(1, 500)});`;
    }
  }

  function testLog(lines: number): string {
    const rows: string[] = [" RUN  v4.1.0 /srv/ledgerly", ""];
    let failed = 0;
    for (let i = 0; i < lines; i++) {
      const ok = rand() > 0.08;
      if (!ok) failed++;
      const file = (pick(FILES).split("/").pop() ?? "x.ts").replace(/\.(ts|sql)$/, ".test.ts");
      rows.push(` ${ok ? "✓" : "×"} test/${file} > ${pick(IDENTS)} ${pick(["rounds", "rejects", "merges", "retries", "reports"])} ${pick(["correctly", "negative input", "JPY amounts", "after refund", "under load"])} ${between(1, 90)}ms`);
      if (!ok) rows.push(`   AssertionError: expected ${between(100, 999)} to be ${between(100, 999)} // Object.is equality`);
    }
    rows.push("", ` Test Files  ${Math.max(1, Math.floor(lines / 6))} passed`, `      Tests  ${lines - failed} passed | ${failed} failed`);
    return rows.join("\n");
  }

  function thinking(): string {
    return `The user wants ${pick(IDENTS)} handled in ${pick(FILES)}. ${pick(THOUGHTS)} ` +
      `I should check ${pick(IDENTS)} and ${pick(IDENTS)} first, then run the tests for ${pick(FILES)}.`;
  }

  function signature(): string {
    let s = "";
    for (let i = 0; i < 64; i++) s += "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"[Math.floor(rand() * 64)];
    return s;
  }

  function summaryOfWork(request: string): string {
    return `Done. ${request.split(/[.?!:]/)[0]}: I changed ${pick(FILES)} and ${pick(FILES)}, ` +
      `ran the suite (${between(120, 480)} passed, 0 failed) and left a note in the PR description about ${pick(IDENTS)}.`;
  }
}

/** UTF-8 bytes of the messages as JSON (one JSON document per message, no separators). */
export function rawJsonBytes(messages: readonly Message[]): number {
  let bytes = 0;
  for (const m of messages) bytes += Buffer.byteLength(JSON.stringify(m), "utf8");
  return bytes;
}
