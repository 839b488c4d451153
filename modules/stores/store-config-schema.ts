import { z, type ZodObject, type ZodType } from "zod";
import type { AnyStoreDefinition } from "./store-definition.js";
import type { StoreRegistry } from "./store-registry.js";

/**
 * A store module's config schema, derived from its registry: `type` must be a registered type, and
 * when the type's definition is loaded its options are checked by the definition's schema (issues
 * at `<path>.<option>`). A type whose definition is in another package is checked when the store
 * is built (load…Store imports it). So a type added to the registry is accepted without touching this schema.
 */
export function registryConfigSchema<Store>(registry: StoreRegistry<Store>, meta: { id: string; title: string; description: string }): ZodType<{ type: string; [option: string]: unknown }> {
  return z
    .looseObject({ type: z.string().min(1).meta({ description: "A registered store type." }) })
    .superRefine((config, context) => {
      const { type, ...options } = config;
      if (!registry.has(type)) {
        context.addIssue({ code: "custom", path: ["type"], message: `expected one of ${registry.types().join(", ")}`, input: type });
        return;
      }
      const result = registry.definition(type)?.options.safeParse(options);
      if (result !== undefined && !result.success) for (const issue of result.error.issues) context.addIssue(issue as Parameters<typeof context.addIssue>[0]);
    })
    .meta(meta);
}

/**
 * The same config for editors (JSON Schema): one strict object per registered type, `type` a
 * literal. A referenced type's definition is taken from `packages` (specifier → module namespace,
 * as a build tool bundles them) or else imported.
 */
export async function editorConfigSchema<Store>(
  registry: StoreRegistry<Store>,
  titles: Readonly<Record<string, string>>,
  meta: { id: string; title: string; description: string },
  packages: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {},
): Promise<ZodType> {
  const members: ZodObject[] = [];
  for (const type of registry.types()) {
    const reference = registry.reference(type);
    const bundled = reference === undefined ? undefined : (packages[reference.package]?.[reference.export ?? registry.kind.exports[0] ?? ""] as AnyStoreDefinition<Store> | undefined);
    const definition = bundled ?? (await registry.resolve(type));
    if (definition === undefined) continue;
    const shape = (definition.options as unknown as ZodObject).shape ?? {};
    members.push(z.strictObject({ type: z.literal(type), ...shape }).meta({ title: titles[type] ?? type, description: definition.description }));
  }
  return z.discriminatedUnion("type", members as unknown as [ZodObject, ...ZodObject[]]).meta(meta);
}
