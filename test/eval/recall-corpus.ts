/**
 * Seeded synthetic conversations for the recall evaluation (issue 7): a long agent session of
 * filler turns (chatter about varied topics, tool calls with results) with PLANTED FACTS — names,
 * numbers, dates, preferences, decisions, and changed minds — each asked about by a QUESTION many
 * turns later, in other words than it was stated.
 *
 * | fact kind | stated as (example) | asked as (example) | evidence |
 * |---|---|---|---|
 * | name | "By the way, my manager on the payments team is Priya Raman." | "Remind me who my boss in payments is?" | the statement |
 * | number | "The staging database runs with 64 GB of RAM." | "How much memory does the staging DB have?" | the statement |
 * | date | "The checkout redesign launch is set for 14 March." | "When does the checkout redesign go live?" | the statement |
 * | preference | "For Go code I always prefer tabs for indentation." | "What indentation do I like in Go?" | the statement |
 * | decision | "We decided to run the invoicing service on Postgres." | "Which database did we pick for invoicing?" | the statement |
 * | changed mind | "Let's deploy the gateway on Friday." … later "Actually, move the gateway deploy to Tuesday." | "What day is the gateway deploy now?" | the LATEST statement (the revision) |
 *
 * Paraphrase is partial by construction: a question keeps one or two ANCHOR words of its fact
 * (the topic: "payments", "staging", "checkout", "Go", "invoicing", "gateway") and replaces the
 * rest with synonyms or other phrasing ("manager" → "boss", "RAM" → "memory", "launch" → "go
 * live"), so word overlap is real but partial. Filler mentions the same anchor topics in passing
 * (distractors: "the payments dashboard was slow again"), so the anchor alone is not enough.
 *
 * Everything comes from one mulberry32 PRNG per seed: the same seed gives the same conversation.
 */
import type { Message } from "../../contracts/generated/message.js";
import { seededRandom } from "../bench/history-generator.js";

export type FactKind = "name" | "number" | "date" | "preference" | "decision" | "changed-mind";

export interface PlantedQuestion {
  /** metadata.id of the question (a user message). */
  id: string;
  kind: FactKind;
  text: string;
  /** metadata.ids of the messages that must be in the window to answer it. */
  evidence: string[];
  /** Turns (user messages) between the evidence and the question. */
  distance: number;
  /** The fact's anchor words (shared by statement and question). */
  anchors: string[];
}

export interface RecallConversation {
  seed: number;
  messages: Message[];
  questions: PlantedQuestion[];
}

interface FactTemplate {
  kind: FactKind;
  anchors: string[];
  /** Statement(s): [original, revision] for changed minds. */
  state: (v: Values) => string[];
  ask: (v: Values) => string;
  /** Distractor sentences mentioning the anchor without the fact. */
  distractors: string[];
}

type Values = Record<string, string>;

const FIRST = ["Priya", "Mateo", "Aiko", "Lars", "Noor", "Chidi", "Elena", "Tomasz", "Farah", "Joon"];
const LAST = ["Raman", "Okafor", "Lindqvist", "Haddad", "Moreau", "Kowalski", "Tanaka", "Silva", "Brennan", "Osei"];
const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"];

/** The fact templates; values are drawn per conversation. Each template is planted once. */
const TEMPLATES: FactTemplate[] = [
  {
    kind: "name",
    anchors: ["payments"],
    state: (v) => [`By the way, my manager on the payments team is ${v.name}. Loop them in on anything risky.`],
    ask: () => "Remind me, who is my boss over in payments?",
    distractors: ["The payments dashboard was slow again this morning.", "Payments had a noisy alert overnight, nothing serious."],
  },
  {
    kind: "name",
    anchors: ["design", "review"],
    state: (v) => [`${v.name} will be the reviewer for the design doc, she knows the history best.`],
    ask: () => "Who did we say would look over the design doc for us?",
    distractors: ["I skimmed the design doc again, the diagrams need work.", "Design review meetings keep running long."],
  },
  {
    kind: "number",
    anchors: ["staging"],
    state: (v) => [`For the record, the staging database runs with ${v.gb} GB of RAM after the resize.`],
    ask: () => "How much memory does the staging DB have now?",
    distractors: ["Staging was redeployed twice today.", "Someone left debug logging on in staging."],
  },
  {
    kind: "number",
    anchors: ["retry", "webhook"],
    state: (v) => [`We agreed the webhook retry limit is ${v.n} attempts before we page anyone.`],
    ask: () => "How many times do we retry a webhook before paging?",
    distractors: ["Webhook signatures are verified in the middleware.", "The retry dashboard needs a better legend."],
  },
  {
    kind: "date",
    anchors: ["checkout", "redesign"],
    state: (v) => [`Heads up: the checkout redesign launch is set for ${v.day} ${v.month}.`],
    ask: () => "When does the checkout redesign go live?",
    distractors: ["The checkout page still flickers on Safari.", "Checkout conversion dipped a bit last week."],
  },
  {
    kind: "date",
    anchors: ["audit"],
    state: (v) => [`The security audit with the external firm happens on ${v.day} ${v.month}, block the whole day.`],
    ask: () => "What date is the external audit again?",
    distractors: ["Audit logs are rotated every night.", "We should tidy the audit trail exports."],
  },
  {
    kind: "preference",
    anchors: ["go"],
    state: () => ["For Go code I always prefer tabs for indentation, please keep gofmt defaults."],
    ask: () => "What indentation style do I like in Go?",
    distractors: ["The Go build cache got corrupted again.", "I read a nice blog post about Go generics."],
  },
  {
    kind: "preference",
    anchors: ["commit", "messages"],
    state: () => ["I like commit messages short, imperative, and under fifty characters in the subject line."],
    ask: () => "How do I want my commit messages written?",
    distractors: ["The last few commits broke the changelog script.", "Someone force-pushed over my commits yesterday."],
  },
  {
    kind: "decision",
    anchors: ["invoicing"],
    state: (v) => [`Decision: we will run the invoicing service on ${v.db}, the team voted this afternoon.`],
    ask: () => "Which database did we pick for invoicing in the end?",
    distractors: ["Invoicing emails go out at 6am UTC.", "The invoicing PDF template has a typo."],
  },
  {
    kind: "decision",
    anchors: ["queue", "notifications"],
    state: (v) => [`We settled on ${v.queue} as the message queue for notifications.`],
    ask: () => "What broker are notifications going through, did we decide?",
    distractors: ["Notifications were delayed for some users on Monday.", "The queue depth graph looks odd."],
  },
  {
    kind: "changed-mind",
    anchors: ["gateway", "deploy"],
    state: (v) => [`Let's deploy the gateway on ${v.first}.`, `Actually, scratch that: move the gateway deploy to ${v.second}.`],
    ask: () => "What day is the gateway deploy happening now?",
    distractors: ["The gateway returned a few 502s during the load test.", "Gateway config lives in the infra repo."],
  },
  {
    kind: "changed-mind",
    anchors: ["logo", "color"],
    state: (v) => [`For the new logo let's go with ${v.c1} as the main color.`, `Changed my mind on the logo, make the main color ${v.c2} instead.`],
    ask: () => "Which color did I finally want for the logo?",
    distractors: ["The logo file is too large for the email header.", "Marketing asked for the logo in SVG."],
  },
];

const FILLER_USER = [
  "Can you look at why the nightly build took so long?",
  "Let's refactor the session middleware a bit.",
  "Please add tests for the pagination helper.",
  "What does the error in the last CI run mean?",
  "Can you tidy up the README introduction?",
  "I think the cache invalidation is off, can you check?",
  "Let's rename the user repository methods to be consistent.",
  "Could you profile the search endpoint?",
  "Please bump the dependencies that have security fixes.",
  "Explain how the rate limiter works today.",
];
const FILLER_ASSISTANT = [
  "Sure, I'll start by reading the relevant files.",
  "Done. I ran the tests and they pass.",
  "I found two places that need changing; updating both.",
  "That error comes from a timeout in the integration job.",
  "Here is a summary of what I changed and why.",
  "I'll check the configuration first.",
];
const TOOL_NAMES = ["read_file", "grep", "run_tests", "bash"] as const;

export interface CorpusOptions {
  seed: number;
  /** Filler turns between planted events (on average). Default 12. */
  spacing?: number;
  /** Minimum turns between a fact and its question. Default 60. */
  minDistance?: number;
}

export function generateRecallConversation(options: CorpusOptions): RecallConversation {
  const rand = seededRandom(options.seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const spacing = options.spacing ?? 12;
  const minDistance = options.minDistance ?? 60;
  const messages: Message[] = [];
  let turn = 0;
  let call = 0;
  const push = (m: Message): string => {
    const id = `s${options.seed}-m${messages.length + 1}`;
    messages.push({ ...m, metadata: { ...m.metadata, id } });
    return id;
  };
  const values: Values = {
    name: `${pick(FIRST)} ${pick(LAST)}`,
    gb: String(pick([16, 32, 48, 64, 96, 128])),
    n: String(3 + Math.floor(rand() * 6)),
    day: String(1 + Math.floor(rand() * 28)),
    month: pick(MONTHS),
    db: pick(["Postgres", "MySQL", "CockroachDB"]),
    queue: pick(["RabbitMQ", "NATS", "Kafka"]),
    first: pick(DAYS),
    second: "",
    c1: pick(["teal", "orange", "navy"]),
    c2: "",
  };
  values.second = pick(DAYS.filter((d) => d !== values.first));
  values.c2 = pick(["crimson", "forest green", "gold"]);
  const distractorPool = TEMPLATES.flatMap((t) => t.distractors);

  const filler = (n: number) => {
    for (let k = 0; k < n; k++) {
      turn++;
      // Half the turns mention a planted topic in passing (a distractor: same topic words, no fact).
      const aside = rand() < 0.5 ? ` ${pick(distractorPool)}${rand() < 0.3 ? ` ${pick(distractorPool)}` : ""}` : "";
      push({ role: "user", content: `${pick(FILLER_USER)}${aside}` });
      if (rand() < 0.5) {
        const id = `call_${options.seed}_${++call}`;
        const tool = pick(TOOL_NAMES);
        push({ role: "assistant", content: null, tool_calls: [{ id, type: "function", function: { name: tool, arguments: JSON.stringify({ target: `src/module-${Math.floor(rand() * 40)}.ts` }) } }] });
        const lines = 4 + Math.floor(rand() * 30);
        push({ role: "tool", tool_call_id: id, content: Array.from({ length: lines }, (_, i) => `${i + 1}: const value${i} = compute(${Math.floor(rand() * 1000)}); // ${pick(FILLER_ASSISTANT)}`).join("\n") });
      }
      push({ role: "assistant", content: pick(FILLER_ASSISTANT) });
    }
  };

  // Plan: facts in a shuffled order, each question at least minDistance turns after its evidence.
  const facts = [...TEMPLATES].sort(() => rand() - 0.5);
  type Pending = { template: FactTemplate; evidence: string[]; plantedAt: number; statedAt: number };
  const pending: Pending[] = [];
  const questions: PlantedQuestion[] = [];
  filler(spacing);
  for (const template of facts) {
    const statements = template.state(values);
    const evidence: string[] = [];
    let plantedAt = turn;
    for (let s = 0; s < statements.length; s++) {
      if (s > 0) filler(Math.floor(spacing * (1 + rand())));
      turn++;
      const id = push({ role: "user", content: statements[s]! });
      push({ role: "assistant", content: "Got it, noted." });
      plantedAt = turn;
      evidence.length = 0;
      evidence.push(id); // changed minds: only the latest statement answers the question
    }
    pending.push({ template, evidence: [...evidence], plantedAt, statedAt: plantedAt });
    filler(Math.floor(spacing * (0.5 + rand())));
    askDue(false);
  }
  while (pending.length > 0) {
    filler(spacing);
    askDue(true);
  }
  return { seed: options.seed, messages, questions };

  function askDue(force: boolean): void {
    for (let i = 0; i < pending.length; i++) {
      const p = pending[i]!;
      if (turn - p.plantedAt < minDistance) continue;
      if (!force && rand() < 0.5) continue;
      turn++;
      const text = p.template.ask(values);
      const id = push({ role: "user", content: text });
      questions.push({ id, kind: p.template.kind, text, evidence: p.evidence, distance: turn - p.plantedAt, anchors: p.template.anchors });
      push({ role: "assistant", content: "Let me think about that." });
      pending.splice(i--, 1);
      filler(Math.floor(spacing / 2));
    }
  }
}

/** Lower-cased content words (no stop words), for overlap checks. */
export function contentWords(text: string): Set<string> {
  const stop = new Set(["the", "a", "an", "is", "are", "in", "on", "for", "of", "to", "and", "my", "me", "i", "we", "did", "do", "does", "what", "who", "how", "which", "when", "with", "be", "as", "now", "again", "over", "it", "that", "this", "our", "us", "at", "by", "up", "end", "set", "go", "let's", "lets", "will", "s"]);
  return new Set(
    text
      .toLowerCase()
      .split(/[^a-z0-9']+/)
      .filter((w) => w.length > 1 && !stop.has(w)),
  );
}
