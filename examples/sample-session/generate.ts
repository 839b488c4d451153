/**
 * Writes examples/sample-session.jsonl: a recorded tool-using coding session (a developer and an
 * agent fixing, extending and testing a small invoicing service) used by `amplifier-ts replay`, the
 * README quickstart and the benchmark. Deterministic: a seeded PRNG, so the file only changes when
 * this script does. Run: `npx esbuild examples/sample-session/generate.ts --outfile=.cache/gen.mjs
 * --format=esm --platform=node && node .cache/gen.mjs`.
 *
 * The shape mirrors real sessions: a long system prompt (critical), user requests, assistant turns
 * that call read_file / grep / run_tests / edit_file / bash in the OpenAI tool_calls style,
 * file-sized tool results, a few very large logs, one tool call interrupted by a crash, and a
 * closing request whose answer needs facts from the first hour of the session.
 */
import { writeFileSync } from "node:fs";

type Msg = Record<string, unknown>;

const rand = mulberry32(20261122);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
const between = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));

const FILES = [
  "src/invoices/create-invoice.ts", "src/invoices/apply-discount.ts", "src/invoices/tax-rules.ts",
  "src/customers/customer-repository.ts", "src/customers/merge-duplicates.ts", "src/http/routes.ts",
  "src/http/validate-request.ts", "src/payments/stripe-webhook.ts", "src/payments/retry-policy.ts",
  "src/reports/monthly-revenue.ts", "src/db/migrations/0007_invoice_currency.sql", "src/util/money.ts",
];
const IDENTS = [
  "invoiceTotal", "lineItems", "discountRate", "customerId", "currencyCode", "taxBracket", "roundHalfEven",
  "retryAfterMs", "webhookSecret", "dueDate", "issuedAt", "vatNumber", "paymentIntent", "refundAmount",
];
const REQUESTS = [
  "The monthly revenue report double-counts refunded invoices. Can you find out why and fix it?",
  "Add support for invoices in JPY — they have no minor units, so rounding must change.",
  "The stripe webhook sometimes times out under load. Make the retry policy exponential with jitter.",
  "Customers with the same VAT number should be merged. Write merge-duplicates and tests for it.",
  "Tax rules for Germany changed: reduced rate 7% applies to books. Update tax-rules.ts.",
  "Please run the whole test suite and tell me what's failing.",
  "Rename `invoiceTotal` to `grossTotal` everywhere, including the SQL migration comments.",
  "The request validator accepts negative quantities. Reject them with a 422 and a clear message.",
  "Can you add a `dueDate` default of 30 days after issue, configurable per customer?",
  "Explain how apply-discount interacts with tax — is the discount applied before or after VAT?",
];
const TOOLS = ["read_file", "grep", "run_tests", "edit_file", "bash"] as const;

const out: Msg[] = [];
let callSeq = 0;
const t0 = Date.parse("2026-11-02T09:00:00Z");
const push = (m: Msg) => {
  const meta = (m.metadata ?? {}) as Record<string, unknown>;
  meta.id = `m${String(out.length + 1).padStart(5, "0")}`;
  meta.timestamp = new Date(t0 + out.length * 7_000).toISOString();
  out.push({ ...m, metadata: meta });
};

push({
  role: "system",
  content:
    "You are a senior engineer pair-programming on `ledgerly`, a TypeScript invoicing service (Node 20, PostgreSQL). " +
    "Work in small verified steps: read before you edit, run the tests after every change, never commit secrets. " +
    "Money is stored as integer minor units; always round half-even. The user prefers concise answers with file paths. " +
    "Project conventions: kebab-case files, one export per file, vitest for tests, zod for request validation.",
  metadata: { critical: true },
});
push({ role: "user", content: "Hi! Quick context: my name is Dana, the staging database is `ledgerly_stg` on port 55432, and our release freeze starts on 2026-11-20. Keep that in mind." });
push({ role: "assistant", content: "Noted, Dana: staging DB `ledgerly_stg` on port 55432, release freeze from 2026-11-20. What should we start with?" });

let turns = 0;
while (turns < 320) {
  const request = pick(REQUESTS);
  push({ role: "user", content: request });
  turns++;
  const steps = between(2, 7);
  let crashed = false;
  for (let s = 0; s < steps; s++) {
    const parallel = rand() < 0.2 ? 2 : 1;
    const calls = Array.from({ length: parallel }, () => makeCall(pick(TOOLS)));
    push({ role: "assistant", content: rand() < 0.5 ? thought() : null, tool_calls: calls.map((c) => c.call) });
    turns++;
    if (turns === 181) {
      // The process crashed while this tool ran: the call has no result, and the session resumed
      // later with a new user message. Windows must repair this, not send it to the provider.
      crashed = true;
      break;
    }
    for (const c of calls) push({ role: "tool", tool_call_id: c.call.id, name: c.call.function.name, content: c.result });
  }
  if (crashed) continue;
  push({ role: "assistant", content: summaryOfWork(request) });
  turns++;
}
push({ role: "user", content: "Before the freeze: which port was the staging database on again, and what date does the freeze start?" });

writeFileSync("examples/sample-session.jsonl", out.map((m) => JSON.stringify(m)).join("\n") + "\n");
console.log(`wrote ${out.length} messages, ${turns} assistant turns`);

function makeCall(tool: (typeof TOOLS)[number]) {
  const id = `call_${(++callSeq).toString(36).padStart(6, "0")}`;
  const file = pick(FILES);
  let args: Record<string, unknown>;
  let result: string;
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
      args = { command: "npx vitest run", filter: rand() < 0.5 ? pick(FILES).split("/")[1] : undefined };
      const huge = rand() < 0.04;
      result = testLog(huge ? between(1500, 2500) : between(8, 80));
      break;
    }
    case "edit_file":
      args = { path: file, old: codeLine(), new: codeLine() };
      result = `Edited ${file}: 1 hunk, +${between(1, 12)} -${between(1, 9)}`;
      break;
    default:
      args = { command: pick(["git status --short", "git diff --stat", "npm run lint", "psql -p 55432 ledgerly_stg -c '\\d invoices'"]) };
      result = Array.from({ length: between(1, 25) }, () => `${pick([" M", "??", " D"])} ${pick(FILES)}`).join("\n");
  }
  return { call: { id, type: "function" as const, function: { name: tool, arguments: JSON.stringify(args) } }, result };
}

function sourceFile(path: string, lines: number): string {
  const body: string[] = [`// ${path}`, `import { z } from "zod";`, `import { roundHalfEven } from "../util/money.js";`, ""];
  while (body.length < lines) {
    const name = pick(IDENTS);
    body.push(`export function ${name}For${pick(["Invoice", "Customer", "Line", "Payment"])}(input: ${pick(["Invoice", "LineItem[]", "Customer"])}) {`);
    for (let i = between(2, 9); i > 0; i--) body.push(`  ${codeLine()}`);
    body.push("}", "");
  }
  return body.join("\n");
}

function codeLine(): string {
  const a = pick(IDENTS), b = pick(IDENTS);
  return pick([
    `const ${a} = roundHalfEven(${b} * ${(rand() * 2).toFixed(3)});`,
    `if (${a} < 0) throw new RangeError("${a} must not be negative");`,
    `return { ...${b}, ${a}: ${between(0, 9999)} };`,
    `await db.query("UPDATE invoices SET ${a.toLowerCase()} = $1 WHERE id = $2", [${b}, id]);`,
    `// TODO(${pick(["dana", "sam", "li"])}): handle ${a} when ${b} is missing`,
    `expect(${a}(${between(1, 500)})).toBe(${between(1, 500)});`,
  ]);
}

function testLog(lines: number): string {
  const rows: string[] = [` RUN  v4.1.0 /srv/ledgerly`, ""];
  let failed = 0;
  for (let i = 0; i < lines; i++) {
    const ok = rand() > 0.08;
    if (!ok) failed++;
    rows.push(` ${ok ? "✓" : "×"} test/${pick(FILES).split("/").pop()!.replace(".ts", ".test.ts")} > ${pick(IDENTS)} ${pick(["rounds", "rejects", "merges", "retries", "reports"])} ${pick(["correctly", "negative input", "JPY amounts", "after refund", "under load"])} ${between(1, 90)}ms`);
    if (!ok) rows.push(`   AssertionError: expected ${between(100, 999)} to be ${between(100, 999)} // Object.is equality`);
  }
  rows.push("", ` Test Files  ${Math.max(1, Math.floor(lines / 6))} passed`, `      Tests  ${lines - failed} passed | ${failed} failed`);
  return rows.join("\n");
}

function thought(): string {
  return pick([
    "Let me look at the current implementation first.",
    "I'll check where this identifier is used before changing it.",
    "Running the tests to see the current state.",
    "The failure points at the rounding step; reading money.ts.",
    "Applying the change and re-running the affected tests.",
  ]);
}

function summaryOfWork(request: string): string {
  return `Done. ${request.split(/[.?!]/)[0]} — I changed ${pick(FILES)} and ${pick(FILES)}, ` +
    `ran the suite (${between(120, 480)} passed, 0 failed) and left a note in the PR description about ${pick(IDENTS)}.`;
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
