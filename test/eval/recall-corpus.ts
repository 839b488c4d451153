/**
 * Seeded synthetic agent sessions for the recall evaluation (issue 7): a long session of filler
 * turns — requests about many components, multi-step tool loops (reads, greps, test runs, logs),
 * some of them long — with PLANTED FACTS (names, numbers, dates, preferences, decisions, changed
 * minds), each asked about by a QUESTION 60–400 turns later, in other words than it was stated.
 *
 * | fact kind | stated as (one of 3 phrasings)                                | asked as (one of 3 phrasings)                         | evidence |
 * |-----------|----------------------------------------------------------------|-------------------------------------------------------|----------|
 * | name      | "Quick bit of context: Priya Raman manages the payments team…" | "Remind me, who is my boss over in payments?"          | the statement |
 * | number    | "We bumped the staging DB box to 64 GB of memory yesterday."   | "What's the RAM size on the staging database machine?" | the statement |
 * | date      | "We're shipping the new checkout on 14 March, …"               | "When are we launching the checkout revamp?"           | the statement |
 * | preference| "In Go files use tabs, never spaces; just run gofmt."          | "How should Go code be indented for me?"               | the statement |
 * | decision  | "We went with MySQL for invoicing storage after the vote."     | "Which database did we pick for invoicing in the end?" | the statement |
 * | changed mind | "Let's deploy the gateway on Friday." … 1–2 revisions later "Update: the gateway rollout slips to Tuesday." | "Which day did the gateway release end up on?" | the LATEST revision (earlier ones are `stale`) |
 *
 * What makes it hard (and what the tests in recall-corpus.test.ts hold it to):
 * - 24 facts per session (4 per kind), each with 3 statement phrasings (and 3 revision phrasings
 *   for changed minds) and 3 question phrasings, chosen by the PRNG.
 * - Paraphrase is partial: every phrasing of a fact holds its topic ANCHOR word ("payments",
 *   "staging", "checkout", "Go", …), so statement and question always share it, and every
 *   question has content words its statement lacks (synonyms: "manager" → "boss", "RAM" →
 *   "memory", "launch" → "go live", "color" → "colour").
 * - Several facts share a topic: two people on the payments team (my manager, the on-call), two
 *   staging numbers (RAM, node count), two checkout dates (launch, code freeze), two Go
 *   preferences, two notifications decisions, the gateway's rate limit and its (changed) deploy
 *   day, invoicing's owner and its database. The anchor alone cannot tell them apart; the
 *   evidence is the specific statement (`related` lists the same-topic facts' statements).
 * - Distances are stratified over 60–149, 150–299 and 300–400 turns (a third of the facts each
 *   with the defaults); `distance` is counted in user turns from the evidence to the question.
 * - Statements and questions are sometimes embedded in an ordinary request ("Can you profile the
 *   search endpoint? Also, for the record, …"), diluting both the document and the query.
 * - Filler is compositional (73 components, openers, actions, tails, assistant explanations),
 *   with multi-step tool loops (0–5 calls a turn: read_file, grep, run_tests, bash, list_dir,
 *   git_log, http_get) and long tool results (120–320 lines, 5 % of results). Planted topics
 *   recur as distractors: a quarter of the requests work on a component named after a topic
 *   ("the payments reconciliation job" — its tool calls, paths and results then say "payments"
 *   too), a third of the user messages carry a distractor sentence (some near misses with
 *   numbers: "Staging CPU sat at 85 % during the load test"), some replies one. With the
 *   defaults each topic word is in ~1–5 % of a session's messages (the eval reports it) — a
 *   recurring topic, not a saturated one. Collisions are left in: "audit the dependencies of",
 *   "write a migration for", "error handling" are filler phrasings too.
 *
 * Everything comes from one mulberry32 PRNG per seed: the same options give the same session.
 */
import type { Message } from "../../contracts/generated/message.js";
import { seededRandom } from "../bench/history-generator.js";

export type FactKind = "name" | "number" | "date" | "preference" | "decision" | "changed-mind";
export const FACT_KINDS: readonly FactKind[] = ["name", "number", "date", "preference", "decision", "changed-mind"];

/** Distance buckets (user turns from the evidence to its question) the facts are spread over. */
export const DISTANCE_BUCKETS = [
  { label: "60–149", min: 60, max: 149 },
  { label: "150–299", min: 150, max: 299 },
  { label: "300–400", min: 300, max: 400 },
] as const;

export function distanceBucket(distance: number): string {
  const bucket = DISTANCE_BUCKETS.find((b) => distance >= b.min && distance <= b.max);
  return bucket?.label ?? (distance < DISTANCE_BUCKETS[0].min ? `< ${DISTANCE_BUCKETS[0].min}` : `> ${DISTANCE_BUCKETS[2].max}`);
}

export interface PlantedQuestion {
  /** metadata.id of the question (a user message). */
  id: string;
  kind: FactKind;
  /** The fact template's key ("payments-manager"). */
  fact: string;
  /** The fact's topic ("payments"); several facts may share one. */
  topic: string;
  text: string;
  /** metadata.ids of the messages that must be in the window to answer it (the latest statement). */
  evidence: string[];
  /** Changed minds: the superseded statements (not needed; informational — did they come along?). */
  stale: string[];
  /** Statements of the OTHER facts on the same topic (confusable with the evidence). */
  related: string[];
  /** The value the evidence states (never in the question). */
  answer: string;
  /** User turns between the evidence and the question. */
  distance: number;
  /** The fact's anchor words (every phrasing of the fact holds the first). */
  anchors: string[];
  /** Which phrasings were used: statement(s) (first, then revisions) and question. */
  forms: { statements: number[]; question: number };
  /** True when the question was embedded in an ordinary request. */
  embedded: boolean;
}

export interface RecallConversation {
  seed: number;
  messages: Message[];
  questions: PlantedQuestion[];
  /** User turns in the session. */
  turns: number;
}

type Phrase = (value: string) => string;

export interface FactTemplate {
  key: string;
  kind: FactKind;
  topic: string;
  /** The first is in every phrasing (statements, revisions, questions). */
  anchors: string[];
  /** The values stated in order (one; 2–3 distinct for a changed mind — the last is the answer). */
  values: (draw: Draw) => string[];
  state: Phrase[];
  revise?: Phrase[];
  ask: string[];
}

export interface Draw {
  rand: () => number;
  pick<T>(xs: readonly T[]): T;
  /** `count` distinct elements of xs. */
  distinct<T>(xs: readonly T[], count: number): T[];
  /** A full name no other fact of this session has. */
  name(): string;
  /** "14 March" (distinct within a session). */
  date(): string;
}

const FIRST = ["Priya", "Mateo", "Aiko", "Lars", "Noor", "Chidi", "Elena", "Tomasz", "Farah", "Joon", "Ingrid", "Kwame", "Sofia", "Ravi", "Marta", "Dmitri", "Amara", "Hugo", "Leila", "Bram"];
const LAST = ["Raman", "Okafor", "Lindqvist", "Haddad", "Moreau", "Kowalski", "Tanaka", "Silva", "Brennan", "Osei", "Novak", "Fischer", "Mendes", "Sato", "Quinn", "Varga", "Nilsson", "Adeyemi", "Costa", "Berg"];
const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"];

const one = (f: (d: Draw) => string) => (d: Draw) => [f(d)];
const changes = (pool: readonly string[]) => (d: Draw) => d.distinct(pool, d.rand() < 0.3 ? 3 : 2);

/** The 24 fact templates (4 per kind); values are drawn per session. */
export const FACT_TEMPLATES: readonly FactTemplate[] = [
  // --- names ---------------------------------------------------------------------------------
  {
    key: "payments-manager",
    kind: "name",
    topic: "payments",
    anchors: ["payments"],
    values: one((d) => d.name()),
    state: [
      (x) => `By the way, my manager on the payments team is ${x}. Loop them in on anything risky.`,
      (x) => `Quick bit of context: ${x} manages the payments team, and I report to them.`,
      (x) => `FYI, I work under ${x}, who heads up payments.`,
    ],
    ask: ["Remind me, who is my boss over in payments?", "Who do I report to on the payments side again?", "Who's the person above me in payments, I blanked on the name?"],
  },
  {
    key: "payments-oncall",
    kind: "name",
    topic: "payments",
    anchors: ["payments"],
    values: one((d) => d.name()),
    state: [
      (x) => `${x} is on call for payments this week, page them if anything in payments breaks.`,
      (x) => `Heads up: the payments on-call rotation has ${x} this week.`,
      (x) => `If payments falls over, ${x} holds the pager until next Monday.`,
    ],
    ask: ["Who's carrying the pager for payments right now?", "If payments goes down tonight, who should I ping?", "Who is the payments on-call person this week?"],
  },
  {
    key: "design-reviewer",
    kind: "name",
    topic: "design doc",
    anchors: ["design", "doc"],
    values: one((d) => d.name()),
    state: [
      (x) => `${x} will be the reviewer for the design doc, they know the history best.`,
      (x) => `Let's have ${x} review the design doc before we circulate it.`,
      (x) => `For the design doc, ${x} agreed to do the review pass.`,
    ],
    ask: ["Who did we say would look over the design doc for us?", "Who's reviewing the design proposal again?", "Which colleague signed up to check our design write-up?"],
  },
  {
    key: "invoicing-owner",
    kind: "name",
    topic: "invoicing",
    anchors: ["invoicing"],
    values: one((d) => d.name()),
    state: [
      (x) => `${x} owns the invoicing service now, ask them before touching its schema.`,
      (x) => `Ownership of invoicing moved to ${x} last sprint.`,
      (x) => `The invoicing code belongs to ${x}'s group these days, so changes go through them.`,
    ],
    ask: ["Who's the owner of invoicing now? I need to ask about a schema change.", "Whose team is responsible for the invoicing service these days?", "Who should sign off on invoicing changes?"],
  },
  // --- numbers -------------------------------------------------------------------------------
  {
    key: "staging-ram",
    kind: "number",
    topic: "staging",
    anchors: ["staging"],
    values: one((d) => String(d.pick([16, 32, 48, 64, 96, 128]))),
    state: [
      (x) => `For the record, the staging database runs with ${x} GB of RAM after the resize.`,
      (x) => `We bumped the staging DB box to ${x} GB of memory yesterday.`,
      (x) => `Note: staging Postgres now has ${x} GB RAM, so the old OOM tickets can be closed.`,
    ],
    ask: ["How much memory does the staging DB have now?", "What's the RAM size on the staging database machine?", "How big is the staging database server, memory-wise?"],
  },
  {
    key: "webhook-retries",
    kind: "number",
    topic: "webhook",
    anchors: ["webhook"],
    values: one((d) => String(3 + Math.floor(d.rand() * 7))),
    state: [
      (x) => `We agreed the webhook retry limit is ${x} attempts before we page anyone.`,
      (x) => `Webhook deliveries get retried ${x} times, then we alert.`,
      (x) => `Set the webhook max retries to ${x}; after that it goes to the dead-letter queue.`,
    ],
    ask: ["How many times do we retry a webhook before paging?", "What's the cap on webhook redelivery attempts?", "After how many failed webhook tries do we give up?"],
  },
  {
    key: "gateway-rate-limit",
    kind: "number",
    topic: "gateway",
    anchors: ["gateway"],
    values: one((d) => String(d.pick([50, 100, 150, 200, 250, 500, 1000]))),
    state: [
      (x) => `The gateway rate limit is ${x} requests per second per tenant.`,
      (x) => `We're capping each tenant at ${x} req/s at the gateway.`,
      (x) => `Gateway throttling kicks in at ${x} requests a second for a single tenant.`,
    ],
    ask: ["How many requests per second does the gateway allow a tenant?", "What's the per-tenant throttle at the gateway?", "At what rate does the gateway start rejecting a customer's calls?"],
  },
  {
    key: "staging-nodes",
    kind: "number",
    topic: "staging",
    anchors: ["staging"],
    values: one((d) => String(3 + Math.floor(d.rand() * 10))),
    state: [
      (x) => `Staging runs on ${x} worker nodes since the cluster change.`,
      (x) => `We scaled staging down to ${x} nodes to save money.`,
      (x) => `The staging cluster has ${x} nodes now, don't schedule big load tests there.`,
    ],
    ask: ["How many nodes are in staging at the moment?", "What's the node count of the staging cluster these days?", "How many machines does staging have after the cost cuts?"],
  },
  // --- dates ---------------------------------------------------------------------------------
  {
    key: "checkout-launch",
    kind: "date",
    topic: "checkout",
    anchors: ["checkout"],
    values: one((d) => d.date()),
    state: [
      (x) => `Heads up: the checkout redesign launch is set for ${x}.`,
      (x) => `We're shipping the new checkout on ${x}, marketing is planning around it.`,
      (x) => `The redesigned checkout goes out to all users on ${x}.`,
    ],
    ask: ["When does the checkout redesign go live?", "What's the release date for the new checkout?", "When are we launching the checkout revamp?"],
  },
  {
    key: "audit-date",
    kind: "date",
    topic: "audit",
    anchors: ["audit"],
    values: one((d) => d.date()),
    state: [
      (x) => `The security audit with the external firm happens on ${x}, block the whole day.`,
      (x) => `External auditors come in on ${x} for the security audit.`,
      (x) => `Put the audit on the calendar: ${x}, all day, with the outside firm.`,
    ],
    ask: ["What date is the external audit again?", "When is the security audit with the outside people?", "Which day did I clear my calendar for the audit?"],
  },
  {
    key: "checkout-freeze",
    kind: "date",
    topic: "checkout",
    anchors: ["checkout"],
    values: one((d) => d.date()),
    state: [
      (x) => `Code freeze for checkout starts on ${x}, no merges after that.`,
      (x) => `From ${x} the checkout repo is frozen, only hotfixes.`,
      (x) => `Reminder: checkout enters its code freeze on ${x}.`,
    ],
    ask: ["When does the checkout code freeze begin?", "From what date can't we merge into checkout anymore?", "What's the last day for checkout merges before the freeze?"],
  },
  {
    key: "offsite-date",
    kind: "date",
    topic: "offsite",
    anchors: ["offsite"],
    values: one((d) => d.date()),
    state: [
      (x) => `The team offsite is on ${x} in Lisbon, book travel early.`,
      (x) => `Save the date: our offsite is ${x}.`,
      (x) => `We locked the offsite for ${x}; venue details later.`,
    ],
    ask: ["When is our team offsite happening?", "What date did we land on for the offsite trip?", "Remind me of the offsite date so I can book flights."],
  },
  // --- preferences ---------------------------------------------------------------------------
  {
    key: "go-indent",
    kind: "preference",
    topic: "go",
    anchors: ["go"],
    values: one(() => "tabs"),
    state: [
      () => "For Go code I always prefer tabs for indentation, please keep gofmt defaults.",
      () => "In Go files use tabs, never spaces; just run gofmt.",
      () => "Style note for Go: tabs for indenting, whatever the editor says.",
    ],
    ask: ["What indentation style do I like in Go?", "Spaces or something else for Go source, what did I say?", "How should Go code be indented for me?"],
  },
  {
    key: "go-errors",
    kind: "preference",
    topic: "go",
    anchors: ["go", "errors"],
    values: one(() => "%w"),
    state: [
      () => "In Go I want errors wrapped with %w and some context, never returned bare.",
      () => "Go error handling, my preference: wrap with fmt.Errorf and %w, add context.",
      () => "Please don't return bare errors in Go, always wrap them with %w.",
    ],
    ask: ["How do I want errors handled in Go code?", "What's my rule for Go error returns?", "In Go, should errors just be passed up as they are?"],
  },
  {
    key: "commit-style",
    kind: "preference",
    topic: "commit",
    anchors: ["commit"],
    values: one(() => "imperative"),
    state: [
      () => "I like commit messages short, imperative, and under fifty characters in the subject line.",
      () => "Keep commit subjects imperative and below fifty characters, please.",
      () => "For commit messages: imperative mood, short subject, details in the body.",
    ],
    ask: ["How do I want my commit messages written?", "What's my preferred format for a commit subject?", "Any rules from me about how to word a commit?"],
  },
  {
    key: "typescript-tests",
    kind: "preference",
    topic: "typescript",
    anchors: ["typescript"],
    values: one((d) => d.pick(["table-driven cases with it.each", "one behaviour per test with descriptive names", "fixtures built by small factory functions"])),
    state: [
      (x) => `For TypeScript tests I prefer ${x}.`,
      (x) => `When you write TypeScript tests, go for ${x}, that's how I like them.`,
      (x) => `My taste in TypeScript test code: ${x}.`,
    ],
    ask: ["How do I like TypeScript tests structured?", "What's my style preference for tests in TypeScript?", "Remind me how I want the TypeScript specs laid out?"],
  },
  // --- decisions -----------------------------------------------------------------------------
  {
    key: "invoicing-db",
    kind: "decision",
    topic: "invoicing",
    anchors: ["invoicing"],
    values: one((d) => d.pick(["Postgres", "MySQL", "CockroachDB"])),
    state: [
      (x) => `Decision: we will run the invoicing service on ${x}, the team voted this afternoon.`,
      (x) => `We went with ${x} for invoicing storage after the vote.`,
      (x) => `Final call on invoicing: ${x} is the database.`,
    ],
    ask: ["Which database did we pick for invoicing in the end?", "What storage engine is invoicing going to use, did we settle it?", "What did the team choose to back invoicing with?"],
  },
  {
    key: "notifications-queue",
    kind: "decision",
    topic: "notifications",
    anchors: ["notifications"],
    values: one((d) => d.pick(["RabbitMQ", "NATS", "Kafka"])),
    state: [
      (x) => `We settled on ${x} as the message queue for notifications.`,
      (x) => `Notifications will go through ${x}, that's decided.`,
      (x) => `For notifications we chose ${x} over the alternatives.`,
    ],
    ask: ["What broker are notifications going through, did we decide?", "Which queue did we choose for notifications?", "What messaging system ended up behind notifications?"],
  },
  {
    key: "flag-vendor",
    kind: "decision",
    topic: "feature flags",
    anchors: ["flags", "feature"],
    values: one((d) => d.pick(["LaunchDarkly", "Unleash", "Flagsmith"])),
    state: [
      (x) => `We decided to use ${x} for feature flags rather than building our own.`,
      (x) => `Feature flags: going with ${x}, the homegrown toggle table is retired.`,
      (x) => `After the trial we picked ${x} to manage feature flags.`,
    ],
    ask: ["What did we end up using for feature flags?", "Which vendor handles our feature flags now?", "Are feature flags homegrown or did we buy something?"],
  },
  {
    key: "notifications-channels",
    kind: "decision",
    topic: "notifications",
    anchors: ["notifications"],
    values: one((d) => d.pick(["email and push", "push and in-app", "email and SMS"])),
    state: [
      (x) => `For notifications we decided to keep only ${x} and drop the rest.`,
      (x) => `Notifications scope is decided: ${x}, nothing else for now.`,
      (x) => `We cut notifications down to ${x}.`,
    ],
    ask: ["Which notifications channels are we keeping?", "What delivery methods survived the notifications cut?", "Over which channels do we still send notifications?"],
  },
  // --- changed minds -------------------------------------------------------------------------
  {
    key: "gateway-deploy",
    kind: "changed-mind",
    topic: "gateway",
    anchors: ["gateway"],
    values: changes(WEEKDAYS),
    state: [(x) => `Let's deploy the gateway on ${x}.`, (x) => `Plan for the gateway: we deploy it ${x}.`, (x) => `The gateway deploy goes out on ${x}.`],
    revise: [
      (x) => `Actually, scratch that: move the gateway deploy to ${x}.`,
      (x) => `Change of plan for the gateway deploy, it's ${x} now.`,
      (x) => `Update: the gateway rollout slips to ${x}.`,
    ],
    ask: ["What day is the gateway deploy happening now?", "When are we rolling out the gateway after all the changes?", "Which day did the gateway release end up on?"],
  },
  {
    key: "logo-color",
    kind: "changed-mind",
    topic: "logo",
    anchors: ["logo"],
    values: changes(["teal", "orange", "navy", "crimson", "forest green", "gold", "purple"]),
    state: [(x) => `For the new logo let's go with ${x} as the main color.`, (x) => `Logo direction: ${x} as the primary color.`, (x) => `I'd like the logo mostly ${x}.`],
    revise: [(x) => `Changed my mind on the logo, make the main color ${x} instead.`, (x) => `Scrap the earlier logo color, use ${x}.`, (x) => `On reflection the logo should be ${x}.`],
    ask: ["Which color did I finally want for the logo?", "What's the logo's main colour in the end?", "Remind me what shade we landed on for the logo."],
  },
  {
    key: "migration-slot",
    kind: "changed-mind",
    topic: "migration",
    anchors: ["migration"],
    values: changes(["Saturday night", "Sunday morning", "Friday evening", "Wednesday night", "Thursday morning"]),
    state: [
      (x) => `Let's run the orders migration on ${x}, when traffic is lowest.`,
      (x) => `The orders table migration is planned for ${x}.`,
      (x) => `We'll do the orders migration ${x}.`,
    ],
    revise: [(x) => `Change of plan: the orders migration moves to ${x}.`, (x) => `Actually let's push the migration to ${x}, ops asked.`, (x) => `New slot for the orders migration: ${x}.`],
    ask: ["When are we doing the orders migration now?", "What's the current slot for the migration of the orders table?", "Did the migration time change? When is it?"],
  },
  {
    key: "standup-time",
    kind: "changed-mind",
    topic: "standup",
    anchors: ["standup"],
    values: changes(["9:00", "9:30", "10:00", "10:15", "11:00"]),
    state: [(x) => `Let's move standup to ${x} starting next week.`, (x) => `Standup will be at ${x} from now on.`, (x) => `I'm proposing standup at ${x} so the Berlin folks can join.`],
    revise: [(x) => `Scratch that, standup is at ${x} after all.`, (x) => `Correction: standup time is ${x}.`, (x) => `Standup moves again, to ${x}, sorry for the churn.`],
    ask: ["What time is our daily standup these days?", "When do we meet for standup, after all the back and forth?", "Remind me of the standup time, it changed a couple of times."],
  },
];

// --- filler vocabulary -----------------------------------------------------------------------

interface Component {
  name: string;
  topic?: string;
}

/** Topic → components named after it and distractor sentences (the topic without the fact). */
const TOPICS: Record<string, { components: string[]; distractors: string[] }> = {
  payments: {
    components: ["payments dashboard", "payments reconciliation job", "payments SDK wrapper"],
    distractors: [
      "The payments dashboard was slow again this morning.",
      "Payments had a noisy alert overnight, nothing serious.",
      "Someone on the payments team asked about the refund API.",
      "I owe the payments folks a reply about the ledger export.",
      "The payments provider changed their sandbox URL, heads up.",
    ],
  },
  "design doc": {
    components: ["design doc template", "design system tokens"],
    distractors: ["I skimmed the design doc again, the diagrams need work.", "Design review meetings keep running long.", "The design doc template is missing a rollback section.", "Someone left comments all over the design doc."],
  },
  invoicing: {
    components: ["invoicing PDF renderer", "invoicing cron", "invoicing schema"],
    distractors: ["Invoicing emails go out at 6am UTC.", "The invoicing PDF template has a typo.", "Invoicing totals were off by a cent for two customers.", "The invoicing team wants a CSV export too."],
  },
  staging: {
    components: ["staging deploy script", "staging seed data"],
    distractors: [
      "Staging was redeployed twice today.",
      "Someone left debug logging on in staging.",
      "Staging CPU sat at 85 % during the load test.",
      "The staging database backup took 40 minutes last night.",
      "Staging certificates expire in 12 days.",
    ],
  },
  webhook: {
    components: ["webhook handler", "webhook signature check"],
    distractors: ["Webhook signatures are verified in the middleware.", "A partner complained about duplicate webhook deliveries.", "The webhook logs are very chatty.", "Webhook latency p99 was 900 ms yesterday."],
  },
  gateway: {
    components: ["gateway config", "gateway health checks"],
    distractors: [
      "The gateway returned a few 502s during the load test.",
      "Gateway config lives in the infra repo.",
      "Gateway memory climbed to 70 % over the weekend.",
      "We should document the gateway timeouts somewhere.",
    ],
  },
  checkout: {
    components: ["checkout form", "checkout analytics events"],
    distractors: ["The checkout page still flickers on Safari.", "Checkout conversion dipped a bit last week.", "Checkout tests are flaky on CI again.", "Product wants a new banner on the checkout page."],
  },
  audit: {
    components: ["audit log exporter"],
    distractors: ["Audit logs are rotated every night.", "We should tidy the audit trail exports.", "The audit log table is 40 GB already."],
  },
  offsite: {
    components: ["offsite planning doc"],
    distractors: ["The offsite survey is still open.", "Someone suggested a hackathon at the offsite.", "Offsite budget approval is pending."],
  },
  go: {
    components: ["Go build", "Go linter config", "Go worker service"],
    distractors: ["The Go build cache got corrupted again.", "I read a nice blog post about Go generics.", "Go 1.23 release notes look interesting.", "The Go worker panicked once last night."],
  },
  commit: {
    components: ["commit hooks", "commit lint rules"],
    distractors: ["The last few commits broke the changelog script.", "Someone force-pushed over my commits yesterday.", "The pre-commit hook is too slow."],
  },
  typescript: {
    components: ["TypeScript build config", "TypeScript test helpers"],
    distractors: ["TypeScript 5.6 broke one of our type guards.", "The TypeScript compile takes 90 seconds now.", "I'd like stricter TypeScript settings eventually."],
  },
  notifications: {
    components: ["notifications worker", "notifications templates"],
    distractors: ["Notifications were delayed for some users on Monday.", "The notifications worker restarted three times.", "Marketing wants to A/B test notifications copy.", "The queue depth graph for notifications looks odd."],
  },
  "feature flags": {
    components: ["feature flag client", "feature flag cleanup"],
    distractors: ["There are 40 stale feature flags to clean up.", "A feature flag was left on in production.", "Feature flag evaluation shows up in the profiles."],
  },
  logo: {
    components: ["logo assets"],
    distractors: ["The logo file is too large for the email header.", "Marketing asked for the logo in SVG.", "The favicon still shows the old logo."],
  },
  migration: {
    components: ["orders migration script", "migration runner"],
    distractors: ["The last migration took a lock for two minutes.", "Migration scripts need a dry-run flag.", "The orders table has 80 million rows now."],
  },
  standup: {
    components: ["standup bot"],
    distractors: ["Standup ran long again today.", "The standup bot forgot to post on Friday.", "Can we keep standup notes in the wiki?"],
  },
};

const NEUTRAL_COMPONENTS = [
  "session middleware", "pagination helper", "search endpoint", "rate limiter", "cache layer", "user repository", "CSV exporter", "auth callback",
  "image resizer", "config loader", "metrics exporter", "websocket handler", "date formatting utils", "email templates", "signup form", "admin panel",
  "CLI parser", "logging setup", "health check endpoint", "i18n bundles", "upload service", "job scheduler", "GraphQL resolvers", "ORM models",
  "docker compose file", "CI workflow", "linter config", "error boundary", "retry helper", "password reset flow", "profile page", "avatar uploader",
  "report generator", "tenant resolver", "billing cron", "sitemap builder", "search indexer", "permissions matrix", "audit middleware", "backup script",
];

const NEUTRAL: Component[] = NEUTRAL_COMPONENTS.map((name) => ({ name }));
const TOPICAL: Component[] = Object.entries(TOPICS).flatMap(([topic, t]) => t.components.map((name) => ({ name, topic })));
const COMPONENTS: Component[] = [...NEUTRAL, ...TOPICAL];

const OPENERS = ["Can you", "Please", "Could you", "Let's", "I need you to", "When you get a chance,", "Next:", "Okay, now", "Quick one:", "Before lunch, can you"];
const ACTIONS = [
  "look at why", "refactor", "add tests for", "profile", "clean up", "document", "fix the flaky test in", "review the error handling in", "rename the methods in",
  "add logging to", "check the types in", "speed up", "remove dead code from", "add a retry to", "split up", "write a migration for", "audit the dependencies of",
  "add metrics to", "simplify", "update the README section on",
];
const TAILS = [
  "", "", "", " before the release", " — it broke again after the last merge", " and tell me what you find", ", the one we touched last week", "; keep the diff small",
  " without changing the public API", ", CI has been red since this morning", " if it's quick", " and open a draft PR",
];
const PROBLEMS = [
  "a missing await in the error path", "an off-by-one in the pagination cursor", "a stale cache key after the rename", "a race between two writers",
  "an unbounded retry loop", "a timezone bug in the date parsing", "a leaked file handle", "a N+1 query in the list view", "an unchecked null from the config",
  "a regex that backtracks on long input", "a test that depends on wall-clock time", "a circular import", "a swallowed exception", "a wrong default in the schema",
];
const FIXES = [
  "added the missing check", "moved the logic into a helper", "replaced the loop with a batch call", "pinned the dependency", "added a regression test",
  "made the timeout configurable", "split the function in two", "switched to the streaming API", "added an index", "removed the duplicate handler",
];
const WRAPUPS = ["Tests pass now.", "The diff is small.", "Let me know if you want it split into two PRs.", "I left a TODO for the follow-up.", "CI is green locally.", "I did not touch the public API.", ""];
const ACKS = ["Got it, noted.", "Noted, thanks.", "Thanks, I'll keep that in mind.", "Understood.", "Good to know — noted.", "Okay, I'll remember that."];
const ANSWERING = ["Let me check what we said earlier.", "Let me look back through the conversation.", "One moment, checking my notes.", "Let me find where that came up."];
const EMBED_STATEMENT = ["Also, for the record:", "Side note:", "Before I forget:", "Oh, and one thing:", "Unrelated:"];
const EMBED_QUESTION = ["Before you carry on —", "Quick question first:", "Unrelated:", "One more thing:", "Hang on —"];
const LEVELS = ["INFO", "INFO", "INFO", "WARN", "ERROR", "DEBUG"];
const EVENTS = ["request completed", "upstream timeout", "retrying after backoff", "cache miss", "connection reset", "job finished", "slow query", "rate limited", "config reloaded", "health check ok"];
const VERBS = ["load", "save", "fetch", "parse", "resolve", "render", "sync", "apply", "build", "validate"];
const TOOLS = ["read_file", "grep", "run_tests", "bash", "list_dir", "git_log", "http_get"] as const;

export interface CorpusOptions {
  seed: number;
  /** Fact templates planted (a seeded subset of FACT_TEMPLATES when fewer). Default all 24. */
  facts?: number;
  /** Minimum user turns from the evidence to its question. Default 60. */
  minDistance?: number;
  /** Maximum user turns from the evidence to its question. Default 400. */
  maxDistance?: number;
  /** Chance a filler tool result is long (120–320 lines). Default 0.05. */
  longResultShare?: number;
  /** Chance a filler request is about a component named after a planted topic (its tool loop then mentions it too). Default 0.25. */
  topicalWorkShare?: number;
  /** Chance a filler user message carries a distractor sentence about a planted topic (a second one: a third of that). Default 0.35. */
  asideShare?: number;
}

type Event = { turn: number; fact: number; step: number };

export function generateRecallConversation(options: CorpusOptions): RecallConversation {
  const rand = seededRandom(options.seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
  const shuffle = <T>(xs: readonly T[]): T[] => {
    const out = [...xs];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  };
  const minDistance = options.minDistance ?? 60;
  const maxDistance = options.maxDistance ?? 400;
  const longShare = options.longResultShare ?? 0.05;
  const topicalShare = options.topicalWorkShare ?? 0.25;
  const asideShare = options.asideShare ?? 0.35;
  if (!(minDistance >= 1 && maxDistance >= minDistance)) throw new Error("recall corpus: need 1 ≤ minDistance ≤ maxDistance");

  // --- values -------------------------------------------------------------------------------
  const usedNames = new Set<string>();
  const usedDates = new Set<string>();
  const draw: Draw = {
    rand,
    pick,
    distinct: (xs, count) => shuffle(xs).slice(0, count),
    name() {
      for (;;) {
        const n = `${pick(FIRST)} ${pick(LAST)}`;
        if (usedNames.has(n) || [...usedNames].some((u) => u.split(" ")[0] === n.split(" ")[0])) continue;
        usedNames.add(n);
        return n;
      }
    },
    date() {
      for (;;) {
        const d = `${int(1, 28)} ${pick(MONTHS)}`;
        if (usedDates.has(d)) continue;
        usedDates.add(d);
        return d;
      }
    },
  };
  const chosen = shuffle(FACT_TEMPLATES).slice(0, Math.min(FACT_TEMPLATES.length, options.facts ?? FACT_TEMPLATES.length));
  const facts = chosen.map((template) => {
    const values = template.values(draw);
    const forms = values.map((_, i) => Math.floor(rand() * (i === 0 ? template.state.length : template.revise!.length)));
    return { template, values, forms, question: Math.floor(rand() * template.ask.length) };
  });

  // --- schedule: each fact's statements and its question on distinct turns ------------------
  const buckets = DISTANCE_BUCKETS.map((b) => ({ min: Math.max(b.min, minDistance), max: Math.min(b.max, maxDistance) })).filter((b) => b.min <= b.max);
  const ranges = buckets.length > 0 ? buckets : [{ min: minDistance, max: maxDistance }];
  const gapsMax = 2 * 30;
  const lastTurn = maxDistance + gapsMax + 40 + int(0, 40);
  const occupied = new Map<number, Event>();
  facts.forEach((fact, f) => {
    const range = ranges[f % ranges.length]!;
    for (let attempt = 0; ; attempt++) {
      if (attempt > 10_000) throw new Error(`recall corpus: cannot place fact ${fact.template.key}`);
      const distance = int(range.min, range.max);
      const gaps = fact.values.slice(1).map(() => int(8, 30));
      const span = gaps.reduce((s, g) => s + g, 0) + distance;
      const start = int(4, Math.max(4, lastTurn - span));
      const turns = [start];
      for (const g of gaps) turns.push(turns[turns.length - 1]! + g);
      turns.push(turns[turns.length - 1]! + distance);
      if (turns[turns.length - 1]! > lastTurn || turns.some((t) => occupied.has(t))) continue;
      turns.forEach((turn, step) => occupied.set(turn, { turn, fact: f, step }));
      break;
    }
  });
  const finalTurn = Math.max(...occupied.keys());

  // --- messages -----------------------------------------------------------------------------
  const messages: Message[] = [];
  let call = 0;
  const push = (m: Message): string => {
    const id = `s${options.seed}-m${messages.length + 1}`;
    messages.push({ ...m, metadata: { ...m.metadata, id } });
    return id;
  };
  const statementIds: string[][] = facts.map(() => []);
  const questions: PlantedQuestion[] = [];
  const topicAside = () => pick(TOPICS[pick(Object.keys(TOPICS))]!.distractors);

  const request = (): { text: string; component: Component } => {
    const component = rand() < topicalShare ? pick(TOPICAL) : pick(NEUTRAL);
    let text = `${pick(OPENERS)} ${pick(ACTIONS)} the ${component.name}${pick(TAILS)}.`;
    if (rand() < asideShare) text += ` ${topicAside()}`;
    if (rand() < asideShare / 3) text += ` ${topicAside()}`;
    if (rand() < 0.1) text += `\n\n\`\`\`\n${Array.from({ length: int(5, 20) }, () => logLine(component)).join("\n")}\n\`\`\``;
    return { text, component };
  };

  const work = (component: Component): void => {
    const steps = rand() < 0.35 ? 0 : Math.min(5, 1 + Math.floor(-Math.log(1 - rand()) * 1.2));
    for (let s = 0; s < steps; s++) {
      const id = `call_${options.seed}_${++call}`;
      const target = rand() < 0.8 ? component : pick(NEUTRAL);
      const tool = pick(TOOLS);
      const prose = rand() < 0.3 ? pick(["Let me look at the code.", "Checking the tests.", "Searching for usages.", "Looking at the logs.", `Reading the ${target.name}.`]) : null;
      push({ role: "assistant", content: prose, tool_calls: [{ id, type: "function", function: { name: tool, arguments: JSON.stringify(toolArguments(tool, target)) } }] });
      push({ role: "tool", tool_call_id: id, content: toolResult(tool, target, rand() < longShare ? int(120, 320) : int(3, 40)) });
    }
    push({ role: "assistant", content: reply(component) });
  };

  const filler = (): void => {
    const { text, component } = request();
    push({ role: "user", content: text });
    work(component);
  };

  for (let turn = 1; turn <= finalTurn; turn++) {
    const event = occupied.get(turn);
    if (!event) {
      filler();
      continue;
    }
    const fact = facts[event.fact]!;
    const { template } = fact;
    const isQuestion = event.step === fact.values.length;
    if (!isQuestion) {
      const value = fact.values[event.step]!;
      const form = fact.forms[event.step]!;
      let text = (event.step === 0 ? template.state : template.revise!)[form]!(value);
      const embedded = rand() < 0.35 ? request() : undefined;
      if (embedded) text = rand() < 0.5 ? `${embedded.text} ${pick(EMBED_STATEMENT)} ${text}` : `${text} ${embedded.text}`;
      statementIds[event.fact]!.push(push({ role: "user", content: text }));
      if (embedded) work(embedded.component);
      else push({ role: "assistant", content: pick(ACKS) });
      continue;
    }
    const asked = template.ask[fact.question]!;
    const embedded = rand() < 0.3 ? request() : undefined;
    const text = embedded ? `${embedded.text.split("\n")[0]} ${pick(EMBED_QUESTION)} ${asked}` : asked;
    const ids = statementIds[event.fact]!;
    const statedAt = [...occupied.values()].filter((e) => e.fact === event.fact && e.step === fact.values.length - 1)[0]!.turn;
    const id = push({ role: "user", content: text });
    questions.push({
      id,
      kind: template.kind,
      fact: template.key,
      topic: template.topic,
      text,
      evidence: [ids[ids.length - 1]!],
      stale: ids.slice(0, -1),
      related: [],
      answer: fact.values[fact.values.length - 1]!,
      distance: turn - statedAt,
      anchors: template.anchors,
      forms: { statements: fact.forms, question: fact.question },
      embedded: embedded !== undefined,
    });
    push({ role: "assistant", content: pick(ANSWERING) });
  }
  for (const q of questions) {
    q.related = facts.flatMap((f, i) => (f.template.topic === q.topic && f.template.key !== q.fact ? statementIds[i]! : []));
  }
  return { seed: options.seed, messages, questions, turns: finalTurn };

  // --- filler helpers (closures over the PRNG) ---------------------------------------------

  function words(component: Component): string[] {
    return component.name.split(/\s+/).map((w) => w.toLowerCase());
  }
  function pathOf(component: Component): string {
    const [dir, ...rest] = words(component);
    return `src/${dir}/${rest.length ? rest.join("-") : "index"}.ts`;
  }
  function camel(component: Component, suffix = ""): string {
    const ws = words(component);
    return ws.map((w, i) => (i === 0 ? w : w[0]!.toUpperCase() + w.slice(1))).join("").replace(/[^A-Za-z0-9]/g, "") + suffix;
  }
  function pascal(component: Component): string {
    const c = camel(component);
    return c[0]!.toUpperCase() + c.slice(1);
  }
  function service(component: Component): string {
    return component.topic?.replace(/\s+/g, "-") ?? words(component)[0]!;
  }
  function timestamp(): string {
    return `2026-11-${String(int(1, 28)).padStart(2, "0")}T${String(int(0, 23)).padStart(2, "0")}:${String(int(0, 59)).padStart(2, "0")}:${String(int(0, 59)).padStart(2, "0")}Z`;
  }
  function logLine(component: Component): string {
    return `${timestamp()} ${pick(LEVELS)} [${service(component)}] ${pick(EVENTS)} duration_ms=${int(1, 5000)} tenant=t_${int(1, 999)}`;
  }
  function codeLine(component: Component, i: number): string {
    const verb = pick(VERBS);
    switch (int(0, 6)) {
      case 0:
        return `export async function ${verb}${pascal(component)}(input: ${pascal(component)}Input): Promise<void> {`;
      case 1:
        return `  const ${camel(component, "Result")}${i} = await ${camel(component)}.${verb}(options);`;
      case 2:
        return `  if (!input) throw new ${pascal(component)}Error("${pick(PROBLEMS)}");`;
      case 3:
        return `  return ${camel(component)}.${verb}({ input, retries: ${int(1, 9)}, timeoutMs: ${int(1, 60) * 100} });`;
      case 4:
        return `  // TODO: ${pick(PROBLEMS)}`;
      case 5:
        return `import { ${pascal(component)}Client } from "../${words(component)[0]}/client.js";`;
      default:
        return `  logger.${pick(["info", "warn", "debug"])}("${pick(EVENTS)}", { ${camel(component)}Id: id });`;
    }
  }
  function toolArguments(tool: (typeof TOOLS)[number], component: Component): Record<string, unknown> {
    switch (tool) {
      case "read_file":
        return { path: pathOf(component) };
      case "grep":
        return { pattern: rand() < 0.5 ? words(component)[0] : camel(component), path: `src/${words(component)[0]}/` };
      case "run_tests":
        return { filter: component.name };
      case "bash":
        return { command: pick([`kubectl -n ${service(component)} get pods`, `npm run lint -- ${pathOf(component)}`, `tail -n 200 logs/${service(component)}.log`, `du -sh src/${words(component)[0]}`]) };
      case "list_dir":
        return { path: `src/${words(component)[0]}` };
      case "git_log":
        return { path: pathOf(component), n: int(5, 20) };
      default:
        return { url: `http://localhost:${int(3000, 3999)}/${service(component)}/status` };
    }
  }
  function toolResult(tool: (typeof TOOLS)[number], component: Component, lines: number): string {
    const out: string[] = [];
    for (let i = 0; i < lines; i++) {
      switch (tool) {
        case "read_file":
          out.push(`${i + 1}: ${codeLine(component, i)}`);
          break;
        case "grep":
          out.push(`${rand() < 0.7 ? pathOf(component) : pathOf(pick(NEUTRAL))}:${int(1, 400)}:${codeLine(component, i)}`);
          break;
        case "run_tests":
          out.push(`${rand() < 0.93 ? "✓" : "✗"} ${component.name} › ${pick(VERBS)}s ${pick(["valid input", "empty input", "a retry", "the legacy format", "concurrent calls", "a timeout"])} (${int(1, 400)} ms)`);
          break;
        case "bash":
        case "http_get":
          out.push(logLine(component));
          break;
        case "list_dir":
          out.push(`src/${words(component)[0]}/${pick(VERBS)}-${pick(["utils", "client", "types", "handler", "index", "schema"])}${rand() < 0.3 ? ".test" : ""}.ts`);
          break;
        default:
          out.push(`${Math.floor(rand() * 0xfffffff).toString(16).padStart(7, "0")} ${pick(["fix", "feat", "chore", "refactor", "test"])}(${service(component)}): ${pick(FIXES)}`);
      }
    }
    if (tool === "run_tests") out.push(`Tests: ${lines} run, ${int(0, 2)} failed`);
    return out.join("\n");
  }
  function reply(component: Component): string {
    const parts = [`I looked at the ${component.name}.`];
    const paragraphs = rand() < 0.2 ? int(2, 5) : 1;
    for (let p = 0; p < paragraphs; p++) parts.push(`The problem was ${pick(PROBLEMS)}; I ${pick(FIXES)}.`);
    if (rand() < 0.15) parts.push(topicAside());
    parts.push(pick(WRAPUPS));
    return parts.filter(Boolean).join(" ");
  }
}

/** Lower-cased words (split on anything but letters, digits and apostrophes; a possessive 's dropped). */
export function wordsOf(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z0-9']+/)
    .map((w) => w.replace(/'s$/, "").replace(/^'+|'+$/g, ""))
    .filter(Boolean);
}

/** Lower-cased content words (no stop words), for overlap checks. */
export function contentWords(text: string): Set<string> {
  const stop = new Set([
    "the", "a", "an", "is", "are", "in", "on", "for", "of", "to", "and", "my", "me", "i", "we", "did", "do", "does", "what", "who", "how", "which", "when", "with",
    "be", "as", "now", "again", "over", "it", "that", "this", "our", "us", "at", "by", "up", "end", "set", "go", "let", "lets", "will", "s",
    "i'd", "i'm", "we're", "we'll", "it's", "that's", "can't", "don't", "or", "so", "just", "any", "from", "after", "before", "then", "them", "they", "their",
  ]);
  return new Set(wordsOf(text).filter((w) => w.length > 1 && !stop.has(w)));
}
