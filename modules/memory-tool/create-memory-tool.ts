import { resolve } from "node:path";
import type { MemoryTreeStore } from "@amplifier-ts/contracts";
import { DEFAULT_AGENT_ID } from "@amplifier-ts/contracts";
import { currentAgentContext } from "@amplifier-ts/core";
import { FileMemoryTree } from "./file-memory-tree.js";
import { MemoryTool } from "./memory-tool.js";
import { memoryToolError } from "./memory-tool-errors.js";
import { DEFAULT_MEMORY_PATH, parseMemoryToolConfig, type MemoryLimits, type MemoryStoreConfig, type MemoryToolConfig } from "./memory-tool-options.js";

export interface MemoryToolDeps {
  /** A store built by the caller (wins over the config's storagePath / store). */
  store?: MemoryTreeStore;
  /** The folder relative paths start at. Default: the working directory. */
  baseDir?: string;
}

export interface CreatedMemoryTool {
  tool: MemoryTool;
  store: MemoryTreeStore;
  tree: () => string;
  limits: MemoryLimits;
  config: ReturnType<typeof parseMemoryToolConfig>;
}

const POSTGRES_PACKAGE = "@amplifier-ts/agent-stores-postgres";

/**
 * The memory tool from its config (MEMORY_TOOL/INVALID_OPTIONS naming a bad option): its store
 * (file by default, PostgreSQL by `store`), limits, and the tree each call uses — `tree` when
 * configured (agents naming the same tree share it), else the running agent's id (the kernel's
 * AgentContext), else "default". The store connects on first use.
 */
export async function createMemoryTool(config: MemoryToolConfig = {}, deps: MemoryToolDeps = {}): Promise<CreatedMemoryTool> {
  const parsed = parseMemoryToolConfig(config);
  const store = deps.store ?? (await storeFor(parsed.store ?? { type: "file", path: parsed.storagePath ?? DEFAULT_MEMORY_PATH }, deps.baseDir ?? process.cwd(), parsed.limits));
  const tree = (): string => parsed.tree ?? currentAgentContext()?.agentId ?? DEFAULT_AGENT_ID;
  const tool = new MemoryTool({ store, limits: parsed.limits, tree });
  return { tool, store, tree, limits: parsed.limits, config: parsed };
}

async function storeFor(config: MemoryStoreConfig, baseDir: string, limits: MemoryLimits): Promise<MemoryTreeStore> {
  if (config.type === "file") return new FileMemoryTree({ path: resolve(baseDir, config.path ?? DEFAULT_MEMORY_PATH), lockTimeoutMs: limits.lockTimeoutMs });
  const { type: _type, ...options } = config;
  let driver: { PostgresMemoryTree?: new (options: object) => MemoryTreeStore };
  try {
    driver = (await import(POSTGRES_PACKAGE)) as typeof driver;
  } catch (cause) {
    throw memoryToolError("DRIVER_MISSING", `the memory tool's "postgres" store needs ${POSTGRES_PACKAGE}`, { path: "store.type", expected: `${POSTGRES_PACKAGE} installed (npm install ${POSTGRES_PACKAGE})`, given: "postgres", cause });
  }
  if (driver.PostgresMemoryTree === undefined) {
    throw memoryToolError("DRIVER_MISSING", `${POSTGRES_PACKAGE} has no PostgresMemoryTree (an older version)`, { path: "store.type", expected: `${POSTGRES_PACKAGE} 0.1.0 or later`, given: "postgres" });
  }
  return new driver.PostgresMemoryTree(options);
}
