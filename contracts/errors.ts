/**
 * One registry of every error code amplifier-ts throws, open to modules.
 *
 * A code is stable: users match on it, tests assert on it, docs link to it (contracts/ERRORS.md
 * documents every one; test/contracts/error-codes-documented.test.ts fails for a code it lacks).
 * The message template is the human summary; the details (module, hook, path, expected, given)
 * say what to fix. Never reuse a code for a different meaning.
 *
 * | who            | how                                               | code                       |
 * |----------------|---------------------------------------------------|----------------------------|
 * | amplifier-ts   | a row in ERROR_CODES, thrown with createError()   | `CONFIG_INVALID`           |
 * | a module       | defineErrorCodes(namespace, templates).create()   | `STORE_POSTGRES/MIGRATION` |
 *
 * Both are checked by the compiler: createError() takes only a built-in code, a module's
 * create() only the codes it defined, so an unregistered code does not compile either way.
 */
export const ERROR_CODES = {
  // --- arguments & contracts -------------------------------------------------------------
  INVALID_ARGUMENT: "An argument was not what the function expects",
  INVALID_MESSAGE: "A message does not match the Message contract",
  INVALID_HOOK_RESULT: "A hook returned something that is not a HookResult",
  INVALID_PROVIDER_INFO: "A provider's getInfo() did not return valid ProviderInfo",
  PROVIDER_TIMEOUT: "A provider's getInfo() did not settle within its timeout",
  WINDOW_RECORD_INVALID: "A stored window record (what a context manager sent) is not a valid record",

  // --- coordinator -----------------------------------------------------------------------
  UNKNOWN_MOUNT_POINT: "No such mount point",
  MOUNT_NAME_REQUIRED: "This mount point holds named modules; a name is required",
  DUPLICATE_MOUNT_NAME: "A module with this name is already mounted here",
  MOUNT_SLOT_OCCUPIED: "This single-slot mount point is already occupied",
  NOT_MOUNTED: "Nothing is mounted there",
  NO_CONTEXT_MOUNTED: "The operation needs a mounted context manager",
  CLEANUP_FAILED: "One or more cleanup functions failed",
  CAPABILITY_EXISTS: "A capability with this name is already registered",
  COORDINATOR_CLOSED: "The coordinator has been cleaned up",
  INJECTION_TOO_LARGE: "A context injection is larger than the configured limit",
  MOUNT_CONTRACT_MISMATCH: "The value mounted does not implement the mount point's contract",

  // --- hooks -----------------------------------------------------------------------------
  INVALID_EVENT_NAME: "Event names follow namespace:action",
  HOOK_TIMEOUT: "A hook handler did not settle within its timeout",
  HOOK_FAILED: "A hook handler threw",
  PROMPT_DENIED: "A prompt:submit hook denied the prompt",

  // --- modules, config, loader -----------------------------------------------------------
  MODULE_NOT_FOUND: "The module reference could not be resolved",
  INVALID_MODULE: "The module does not export mount(coordinator, config)",
  INVALID_MODULE_META: "The module's meta export is malformed",
  INVALID_MODULE_CONFIG: "The module's config does not match its schema",
  MODULE_MOUNT_FAILED: "The module's mount() threw",
  MODULE_MOUNT_TIMEOUT: "The module's mount() did not settle in time",
  MODULE_COMPILE_FAILED: "A TypeScript module could not be compiled",
  MODULE_CACHE_UNSAFE: "The cache folder for compiled .ts modules is not private to this user",
  MODULE_IMPORT_FAILED: "The module was found but importing it failed",
  MODULE_ABANDONED: "A module whose mount failed or timed out used the coordinator afterwards",
  CONFIG_NOT_FOUND: "The config file does not exist",
  CONFIG_PARSE_ERROR: "The config file is not valid JSON",
  CONFIG_INVALID: "The config does not match the config schema",

  // --- context managers, tokens, stores ----------------------------------------------------
  INVALID_BUDGET: "A token budget must be a positive finite number",
  BUDGET_TOO_SMALL: "The smallest valid window (system and critical messages, the last prompt at its minimum) exceeds the token budget",
  UNKNOWN_MODEL: "The model is not in the model registry",
  TOKENIZER_FAILED: "The tokenizer could not be loaded or failed",
  INVALID_SESSION_ID: "A session id must be 1-128 characters of [A-Za-z0-9._-] and not start with a dot",
  INVALID_AGENT_ID: "An agent id must be 1-128 characters of [A-Za-z0-9._-], not start with a dot and not contain '..'",
  SESSION_LOCKED: "Another writer holds this session",
  STORAGE_UNAVAILABLE: "The storage backend cannot be used",
  STORAGE_WRITE_FAILED: "A write to the storage backend failed; the message was not stored",
  STORAGE_WRITE_UNCERTAIN: "A write reached (or may have reached) the storage backend but its outcome is unknown; the message may be stored, and a retry is safe",
  STORE_CLOSED: "The store has been closed",
  STORE_READ_ONLY: "The store was opened read-only (to be read beside its writer); it writes nothing",
  UNKNOWN_STORE: "No history store of this type",
  STORE_DRIVER_MISSING: "The package of this store type is not installed",
  VERIFY_FAILED: "A copied session does not match its source (count or content hash)",
  UNKNOWN_STRATEGY: "No compaction strategy with this name",
  INVALID_STRATEGY_OPTIONS: "A compaction strategy's options do not match its schema",
  STRATEGY_FAILED: "A compaction strategy threw or returned something that is not an array of messages",
  SUMMARIZER_FAILED: "A summarizer threw or returned no summary text",
  SUMMARIZER_TIMEOUT: "A summarizer did not finish within its timeout",
  COMPACTION_UNAVAILABLE: "Manual compaction needs a summarizing strategy (summarization or summarizing) in the context's strategies",
  TRANSCRIPT_INVALID: "A transcript line is not a valid message",
} as const;

/** A built-in code (a key of ERROR_CODES). */
export type ErrorCode = keyof typeof ERROR_CODES;

/** A module's code: `<NAMESPACE>/<CODE>`, both upper snake case (`STORE_POSTGRES/MIGRATION_FAILED`). */
export type ModuleErrorCode<Namespace extends string = string, Code extends string = string> = `${Namespace}/${Code}`;

/** Any code an AmplifierError may carry. */
export type AnyErrorCode = ErrorCode | ModuleErrorCode;

/** What went wrong, precisely enough that the user can act on it. */
export interface ErrorDetails {
  /** The module (or strategy, or store) involved. */
  module?: string;
  /** The hook handler involved. */
  hook?: string;
  /** The event being dispatched. */
  event?: string;
  /** The file involved (config file, session file, module file). */
  file?: string;
  /** JSON path of the offending value, e.g. `session.context.config.maxTokens`. */
  path?: string;
  /** What was expected, in words. */
  expected?: string;
  /** What was given (kept as is; rendered short in the message). */
  given?: unknown;
  /** A suggestion: `did you mean "maxTokens"?`. */
  hint?: string;
  /** The underlying error. */
  cause?: unknown;
  /** Anything else worth carrying (numbers for BUDGET_TOO_SMALL, the list of errors for CLEANUP_FAILED). */
  [key: string]: unknown;
}

/** Every error amplifier-ts throws on purpose is an AmplifierError with a registered code. */
export class AmplifierError extends Error {
  override readonly name = "AmplifierError";
  readonly code: AnyErrorCode;
  readonly details: ErrorDetails;

  constructor(code: AnyErrorCode, message?: string, details: ErrorDetails = {}) {
    super(composeMessage(code, message, details), details.cause === undefined ? undefined : { cause: details.cause });
    this.code = code;
    this.details = details;
  }

  get module(): string | undefined { return this.details.module; }
  get hook(): string | undefined { return this.details.hook; }
  get path(): string | undefined { return this.details.path; }
  get expected(): string | undefined { return this.details.expected; }
  get given(): unknown { return this.details.given; }
}

/** Build an AmplifierError; `message` adds to the code's summary, never replaces the code. */
export function createError(code: ErrorCode, message?: string, details?: ErrorDetails): AmplifierError {
  return new AmplifierError(code, message, details);
}

export function isAmplifierError(value: unknown, code?: AnyErrorCode): value is AmplifierError {
  return value instanceof AmplifierError && (code === undefined || value.code === code);
}

/** What a module's defineErrorCodes() returns: its codes, and a typed create / is for them. */
export interface ModuleErrors<Namespace extends string, Templates extends Readonly<Record<string, string>>> {
  readonly namespace: Namespace;
  /** `codes.MIGRATION_FAILED === "STORE_POSTGRES/MIGRATION_FAILED"`. */
  readonly codes: { readonly [Code in keyof Templates & string]: ModuleErrorCode<Namespace, Code> };
  /** An AmplifierError with the namespaced code; `message` adds to the template, as in createError(). */
  create(code: keyof Templates & string, message?: string, details?: ErrorDetails): AmplifierError;
  /** Whether `value` is an AmplifierError with one of these codes (or with `code`). */
  is(value: unknown, code?: keyof Templates & string): value is AmplifierError;
}

/**
 * Register a module's own error codes under `namespace` and get a typed factory for them:
 *
 * ```ts
 * export const postgresErrors = defineErrorCodes("STORE_POSTGRES", {
 *   MIGRATION_FAILED: "A schema migration of the PostgreSQL store failed",
 * });
 * throw postgresErrors.create("MIGRATION_FAILED", undefined, { module: "store-postgres", cause });
 * ```
 *
 * Namespace and codes are upper snake case. Registering the same namespace again with the same
 * templates is allowed (a package loaded twice); with different ones it is INVALID_ARGUMENT, as
 * is a namespace that is not upper snake case or an empty template.
 */
export function defineErrorCodes<const Namespace extends string, const Templates extends Readonly<Record<string, string>>>(
  namespace: Namespace,
  templates: Templates,
): ModuleErrors<Namespace, Templates> {
  if (typeof namespace !== "string" || !UPPER_SNAKE.test(namespace)) {
    throw createError("INVALID_ARGUMENT", "defineErrorCodes() needs an upper snake case namespace", { path: "namespace", expected: "a string matching /^[A-Z][A-Z0-9_]*$/", given: namespace });
  }
  const entries = Object.entries(templates ?? {});
  for (const [code, template] of entries) {
    if (!UPPER_SNAKE.test(code)) throw createError("INVALID_ARGUMENT", `${namespace}: a code is upper snake case`, { path: `templates.${code}`, expected: "a key matching /^[A-Z][A-Z0-9_]*$/", given: code });
    if (typeof template !== "string" || template === "") throw createError("INVALID_ARGUMENT", `${namespace}: a code needs its message template`, { path: `templates.${code}`, expected: "a non-empty string", given: template });
    const existing = MODULE_TEMPLATES.get(`${namespace}/${code}`);
    if (existing !== undefined && existing !== template) {
      throw createError("INVALID_ARGUMENT", `${namespace}/${code} is already registered with another meaning`, { path: `templates.${code}`, expected: JSON.stringify(existing), given: template });
    }
  }
  for (const [code, template] of entries) MODULE_TEMPLATES.set(`${namespace}/${code}`, template);
  const codes = Object.fromEntries(entries.map(([code]) => [code, `${namespace}/${code}`])) as ModuleErrors<Namespace, Templates>["codes"];
  const own = new Set<string>(Object.values(codes));
  return Object.freeze({
    namespace,
    codes: Object.freeze(codes),
    create: (code: keyof Templates & string, message?: string, details?: ErrorDetails) => new AmplifierError(`${namespace}/${code}`, message, details),
    is: (value: unknown, code?: keyof Templates & string): value is AmplifierError =>
      value instanceof AmplifierError && (code === undefined ? own.has(value.code) : value.code === `${namespace}/${code}`),
  });
}

/** Every registered code and its message template: the built-ins, then modules' codes in registration order. */
export function registeredErrorCodes(): ReadonlyMap<AnyErrorCode, string> {
  return new Map<AnyErrorCode, string>([...(Object.entries(ERROR_CODES) as [ErrorCode, string][]), ...(MODULE_TEMPLATES as Map<ModuleErrorCode, string>)]);
}

/** Render a value short enough to sit in an error message. */
export function describeValue(value: unknown, max = 80): string {
  let text: string;
  if (value === undefined) text = "undefined";
  else if (typeof value === "string") text = JSON.stringify(value);
  // JSON would print NaN and Infinity as null, a BigInt not at all.
  else if (typeof value === "number" || typeof value === "symbol") text = String(value);
  else if (typeof value === "bigint") text = `${value}n`;
  else if (typeof value === "function") text = `[function ${value.name || "anonymous"}]`;
  else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = String(value);
    }
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Module codes registered through defineErrorCodes(), `NAMESPACE/CODE` → template. */
const MODULE_TEMPLATES = new Map<string, string>();
const UPPER_SNAKE = /^[A-Z][A-Z0-9_]*$/;

function templateOf(code: AnyErrorCode): string {
  return Object.hasOwn(ERROR_CODES, code) ? ERROR_CODES[code as ErrorCode] : (MODULE_TEMPLATES.get(code) ?? "Unregistered error code");
}

function composeMessage(code: AnyErrorCode, message: string | undefined, d: ErrorDetails): string {
  // A message built from another error's message already starts with the code: print it once.
  const own = message !== undefined && message.startsWith(`[${code}] `) ? message.slice(code.length + 3) : message;
  const parts = [`[${code}] ${own ?? templateOf(code)}`];
  const where = [
    d.module && `module "${d.module}"`,
    d.hook && `hook "${d.hook}"`,
    d.event && `event "${d.event}"`,
    d.file && `file ${d.file}`,
    d.path && `at ${d.path}`,
  ].filter(Boolean);
  if (where.length) parts.push(`(${where.join(", ")})`);
  if (d.expected) parts.push(`expected ${d.expected}`);
  if ("given" in d) parts.push(`given ${describeValue(d.given)}`);
  if (d.hint) parts.push(d.hint);
  return parts.join("; ").replace("; (", " (");
}
