import { AGENT_ID_PATTERN } from "@amplifier-ts/contracts";
import { z } from "zod";
import { memoryToolError } from "./memory-tool-errors.js";

/** The folder of the file store when the config names none (relative to the config file's folder). */
export const DEFAULT_MEMORY_PATH = ".amplifier/memories";

/** Limits per tree (one tree per agent unless `tree` names a shared one), with their defaults. */
export const MEMORY_LIMIT_DEFAULTS = Object.freeze({
  maxFileBytes: 128 * 1024,
  maxFiles: 500,
  maxTreeBytes: 5 * 1024 * 1024,
  maxPathLength: 255,
  maxDepth: 8,
  maxViewChars: 50_000,
  lockTimeoutMs: 10_000,
});

/** Pinned files (`/memories/pinned/…`) are offered to each request within this share of the model's window, and never more than maxTokens. */
export const PINNED_DEFAULTS = Object.freeze({ share: 0.05, maxTokens: 4_000 });

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,40}$/;
const count = (description: string) => z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional().meta({ description });

const fileStore = z.strictObject({
  type: z.literal("file"),
  path: z.string().min(1).optional().meta({ description: `The folder holding the trees (one sub-folder each). Default ${DEFAULT_MEMORY_PATH}.` }),
});
const postgresStore = z.strictObject({
  type: z.literal("postgres"),
  url: z.string().regex(/^postgres(ql)?:\/\//).optional().meta({ description: "postgres://user@host:port/database. Default AMPLIFIER_PG_URL, else postgres://127.0.0.1:5432/test." }),
  schema: z.string().regex(IDENTIFIER).optional().meta({ description: "The schema holding <tablePrefix>_memory_files. Default public." }),
  tablePrefix: z.string().regex(IDENTIFIER).optional().meta({ description: "Prefix of the table's name. Default amplifier." }),
  poolSize: z.number().int().min(1).max(1000).optional().meta({ description: "Connections of the store's pool. Default 10." }),
});

export const memoryToolConfigSchema = z
  .strictObject({
    storagePath: z.string().min(1).optional().meta({ description: `A file-backed tree: the folder holding the trees (relative to the config file's folder). Default ${DEFAULT_MEMORY_PATH}.` }),
    store: z.discriminatedUnion("type", [fileStore, postgresStore]).optional().meta({ description: 'The store instead of storagePath: { "type": "file", "path" } or { "type": "postgres", "url", "schema", "tablePrefix" } (@amplifier-ts/agent-stores-postgres).' }),
    tree: z.string().regex(AGENT_ID_PATTERN).optional().meta({ description: "The tree every call uses (agents naming the same tree share it). Default: the running agent's id (its AgentContext), else \"default\"." }),
    maxFileBytes: count(`Largest memory file, in UTF-8 bytes. Default ${MEMORY_LIMIT_DEFAULTS.maxFileBytes}.`),
    maxFiles: count(`Most files in one tree. Default ${MEMORY_LIMIT_DEFAULTS.maxFiles}.`),
    maxTreeBytes: count(`Most bytes in one tree, all files together. Default ${MEMORY_LIMIT_DEFAULTS.maxTreeBytes}.`),
    maxPathLength: count(`Longest path, /memories included, in characters. Default ${MEMORY_LIMIT_DEFAULTS.maxPathLength}.`),
    maxDepth: z.number().int().min(0).max(64).optional().meta({ description: `Deepest directory nesting under /memories. Default ${MEMORY_LIMIT_DEFAULTS.maxDepth}.` }),
    maxViewChars: count(`Longest answer of view; a longer file view is cut, saying how to page with view_range. Default ${MEMORY_LIMIT_DEFAULTS.maxViewChars}.`),
    lockTimeoutMs: count(`How long a change waits for another writer of the tree before it fails (the model is told to retry). Default ${MEMORY_LIMIT_DEFAULTS.lockTimeoutMs}.`),
    pinned: z
      .union([
        z.literal(false),
        z.strictObject({
          share: z.number().gt(0).max(0.5).optional().meta({ description: `Share of the model's context window the pinned files may take. Default ${PINNED_DEFAULTS.share}.` }),
          maxTokens: count(`Most tokens of pinned files, whatever the window. Default ${PINNED_DEFAULTS.maxTokens}.`),
        }),
      ])
      .optional()
      .meta({ description: "Files under /memories/pinned/ are offered to every request as instructions (false: never)." }),
  })
  .refine((config) => config.storagePath === undefined || config.store === undefined, { message: "give storagePath or store, not both", path: ["store"] })
  .meta({ id: "MemoryToolConfig", description: "Config of the memory-tool module (Anthropic's memory_20250818 over a /memories tree)." });

export type MemoryToolConfig = z.input<typeof memoryToolConfigSchema>;
export type MemoryStoreConfig = NonNullable<MemoryToolConfig["store"]>;

export interface MemoryLimits {
  maxFileBytes: number;
  maxFiles: number;
  maxTreeBytes: number;
  maxPathLength: number;
  maxDepth: number;
  maxViewChars: number;
  lockTimeoutMs: number;
}

/** The config checked (MEMORY_TOOL/INVALID_OPTIONS naming each problem) with its defaults. */
export function parseMemoryToolConfig(config: unknown): z.output<typeof memoryToolConfigSchema> & { limits: MemoryLimits } {
  const parsed = memoryToolConfigSchema.safeParse(config ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw memoryToolError("INVALID_OPTIONS", `memory-tool: ${issue.path.join(".") || "config"}: ${issue.message}`, {
      path: issue.path.join("."),
      expected: "the memory-tool config (modules/memory-tool/README.md)",
      given: config,
      errors: parsed.error.issues.map((each) => ({ path: each.path.join("."), message: each.message })),
    });
  }
  const value = parsed.data;
  const limits: MemoryLimits = {
    maxFileBytes: value.maxFileBytes ?? MEMORY_LIMIT_DEFAULTS.maxFileBytes,
    maxFiles: value.maxFiles ?? MEMORY_LIMIT_DEFAULTS.maxFiles,
    maxTreeBytes: value.maxTreeBytes ?? MEMORY_LIMIT_DEFAULTS.maxTreeBytes,
    maxPathLength: value.maxPathLength ?? MEMORY_LIMIT_DEFAULTS.maxPathLength,
    maxDepth: value.maxDepth ?? MEMORY_LIMIT_DEFAULTS.maxDepth,
    maxViewChars: value.maxViewChars ?? MEMORY_LIMIT_DEFAULTS.maxViewChars,
    lockTimeoutMs: value.lockTimeoutMs ?? MEMORY_LIMIT_DEFAULTS.lockTimeoutMs,
  };
  return { ...value, limits };
}
