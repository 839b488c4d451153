import { z } from "zod";
import type { AmplifierConfig } from "../generated/amplifier-config.js";

/**
 * The config file's schema — the source of truth: contracts/schemas/amplifier-config.schema.json
 * (for editors) is emitted from it and the AmplifierConfig type generated from that file
 * (`npm run contracts`). The loader validates config files with it (core/config/validate-config.ts);
 * the type assertion at the bottom keeps the inferred type equal to the generated one.
 */
const moduleSpecifier = z.string().min(1).meta({
  id: "ModuleSpecifier",
  title: "ModuleSpecifier",
  description: "A built-in name (context-simple), a path relative to this file (./my-module.ts; .js, .mjs or .ts), or an npm package name.",
});
const moduleConfig = z.record(z.string(), z.unknown()).meta({
  id: "ModuleConfig",
  title: "ModuleConfig",
  description: "Passed to the module's mount(); validated against the module's meta.configSchema when it has one.",
});
const OPTIONAL = "true: a failure to load or mount this module is reported (module:mount_failed) and the module skipped; false (default): it fails the session.";
const shownName = z.string().min(1).meta({ description: "Name shown in reports and events." });

export const sessionModuleRefSchema = z
  .strictObject({ module: moduleSpecifier, config: moduleConfig.optional(), name: shownName.optional() })
  .meta({ id: "SessionModuleRef", title: "SessionModuleRef", description: "A required module (context, orchestrator)." });

export const moduleRefSchema = z
  .strictObject({
    module: moduleSpecifier,
    config: moduleConfig.optional(),
    name: shownName.optional(),
    optional: z.boolean().optional().meta({ description: OPTIONAL }),
  })
  .meta({ id: "ModuleRef", title: "ModuleRef" });

export const namedModuleRefSchema = z
  .strictObject({
    module: moduleSpecifier,
    config: moduleConfig.optional(),
    name: z.string().min(1).meta({ description: "The mount name; unique within its list." }),
    optional: z.boolean().optional().meta({ description: OPTIONAL }),
  })
  .meta({ id: "NamedModuleRef", title: "NamedModuleRef" });

const storeRef = (kind: string, capability: string, types: string) =>
  moduleRefSchema.optional().meta({
    description: `The session's ${kind} store, offered as the "${capability}" capability: { "module": "store-${capability}", "config": { "type": ${types} } } or a third party's module. See contracts/${capability === "vectors" ? "MODULES" : capability.toUpperCase()}.md.`,
  });

export const storesConfigSchema = z
  .strictObject({
    blobs: storeRef("blob", "blobs", '"file" (default), "memory" or "postgres"'),
    graph: storeRef("graph", "graph", '"memory" or "postgres"'),
    tasks: storeRef("task", "tasks", '"memory" or "postgres"'),
    vectors: storeRef("vector", "vectors", '"memory" or "postgres" (pgvector)'),
  })
  .meta({
    id: "StoresConfig",
    title: "StoresConfig",
    description: "The stores a session's tools reach as coordinator capabilities (blobs, graph, tasks, vectors), each a module mounted after the memory and before providers and tools.",
  });

const sessionConfigSchema = z
  .strictObject({ orchestrator: sessionModuleRefSchema.optional(), context: sessionModuleRefSchema })
  .meta({ id: "SessionConfig", title: "SessionConfig", description: "The required modules of a session: a failure to load or mount them stops the session." });

export const amplifierConfigSchema = z
  .strictObject({
    $schema: z.string().optional().meta({ description: "Path or URL of this schema, for editors." }),
    session: sessionConfigSchema,
    providers: z.array(namedModuleRefSchema).optional().meta({ description: "Model providers, mounted at the providers point under their name." }),
    tools: z.array(namedModuleRefSchema).optional().meta({ description: "Tools, mounted at the tools point under their name." }),
    hooks: z.array(moduleRefSchema).optional().meta({ description: "Hook modules; they register their handlers on coordinator.hooks." }),
    embedder: moduleRefSchema
      .optional()
      .meta({
        description:
          'The session\'s embedder (embedder-local, embedder-openai or a third party\'s): mounted before the context, it registers the "embedder" capability (contracts/search.ts), so the context\'s search and recall rank by vectors beside BM25. With optional: true a failure leaves search lexical. See contracts/MODULES.md.',
      }),
    memory: moduleRefSchema
      .optional()
      .meta({ description: "The agent's memory (memory-local, memory-null, memory-postgres, memory-redis or a third party's), mounted at the memory point; over the MEMORY_* environment variables. See contracts/MEMORY.md." }),
    stores: storesConfigSchema.optional(),
    mountTimeoutMs: z
      .number()
      .int()
      .positive()
      .max(2_147_483_647)
      .optional()
      .meta({ description: "How long each module's mount() may take, in milliseconds (at most 2^31-1, Node's timer limit). Default 30000." }),
  })
  .meta({ title: "AmplifierConfig", description: "amplifier.config.json: which modules mount where, with what config. See contracts/MODULES.md." });

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** Fails to compile when the schema and the generated type disagree. */
export const amplifierConfigMirrorsGeneratedType: Same<z.infer<typeof amplifierConfigSchema>, AmplifierConfig> = true;
