// @amplifier-ts/module-memory-tool: Anthropic's memory tool (memory_20250818: view, create,
// str_replace, insert, delete, rename over /memories) for every provider, over a file or
// PostgreSQL tree, with pinned files offered to each request.
import type { ConfigLocationCapability, CoordinatorContract, ModuleMeta } from "@amplifier-ts/contracts";
import { CONFIG_LOCATION_CAPABILITY } from "@amplifier-ts/contracts";
import { createMemoryTool } from "./create-memory-tool.js";
import type { MemoryTool } from "./memory-tool.js";
import { memoryToolConfigSchema, PINNED_DEFAULTS, type MemoryToolConfig } from "./memory-tool-options.js";
import { pinnedMessage, providerWindow } from "./pinned-memory.js";

export { MemoryTool, insertAt, type MemoryToolOptions } from "./memory-tool.js";
export { createMemoryTool, type CreatedMemoryTool, type MemoryToolDeps } from "./create-memory-tool.js";
export { FileMemoryTree, type FileMemoryTreeOptions } from "./file-memory-tree.js";
export { parseMemoryCommand, MEMORY_COMMANDS, type MemoryCommand, type ParsedCommand } from "./memory-commands.js";
export { parseMemoryPath, MEMORY_ROOT, type ParsedPath, type PathLimits } from "./memory-paths.js";
export { ANTHROPIC_MEMORY_TOOL, MEMORY_COMMANDS_SCHEMA, MEMORY_TOOL_DESCRIPTION, memoryFunctionDefinition, type AnthropicMemoryToolDefinition } from "./memory-tool-definitions.js";
export { memoryToolConfigSchema, parseMemoryToolConfig, DEFAULT_MEMORY_PATH, MEMORY_LIMIT_DEFAULTS, PINNED_DEFAULTS, type MemoryToolConfig, type MemoryStoreConfig, type MemoryLimits } from "./memory-tool-options.js";
export { memoryToolErrors, type MemoryToolErrorCode } from "./memory-tool-errors.js";
export { pinnedMessage, PINNED_DIR, type PinnedMessage, type PinnedOptions } from "./pinned-memory.js";
export { humanSize, linesOf } from "./memory-format.js";

export const meta: ModuleMeta = {
  name: "memory-tool",
  version: "0.1.0",
  kind: "tool",
  description: "Anthropic's memory tool (memory_20250818) over a /memories tree in files or PostgreSQL, for every provider.",
  configSchema: memoryToolConfigSchema,
};

/**
 * Builds the tool and returns it, so the loader mounts it at `tools` under the entry's name
 * (`"name": "memory"`, the name Anthropic's memory_20250818 requires). A relative storagePath
 * starts at the config file's folder. Unless `pinned: false`, a `prompt:submit` hook offers the
 * files under /memories/pinned/ as an ephemeral instruction (pinned-memory.ts). Cleanup removes
 * the hook and disconnects the store.
 */
export async function mount(coordinator: CoordinatorContract, config: MemoryToolConfig = {}): Promise<MemoryTool> {
  const location = coordinator.getCapability<ConfigLocationCapability>(CONFIG_LOCATION_CAPABILITY);
  const { tool, store, tree, config: parsed } = await createMemoryTool(config, location ? { baseDir: location.baseDir } : {});
  const pinnedConfig = parsed.pinned === false ? undefined : (parsed.pinned ?? {});
  const unregister =
    pinnedConfig === undefined
      ? undefined
      : coordinator.hooks.register(
          "prompt:submit",
          async () => {
            const pinned = await pinnedMessage({
              store,
              tree,
              share: pinnedConfig.share ?? PINNED_DEFAULTS.share,
              maxTokens: pinnedConfig.maxTokens ?? PINNED_DEFAULTS.maxTokens,
              window: providerWindow(coordinator),
            });
            if (pinned.content === undefined) return { action: "continue" };
            return { action: "inject_context", context_injection: pinned.content, context_injection_role: "system", ephemeral: true };
          },
          { name: "memory-tool:pinned" },
        );
  coordinator.registerCleanup(async () => {
    unregister?.();
    await store.disconnect();
  });
  return tool;
}
