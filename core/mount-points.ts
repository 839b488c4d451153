import type { MountPoint, NamedMountPoint, SingleMountPoint } from "@amplifier-ts/contracts";
import { isContextManager, missingMemoryMethods } from "@amplifier-ts/contracts";
import { createError, describeValue } from "@amplifier-ts/contracts";

/**
 * The closed set of mount points and what each holds. A `Record<MountPoint, …>`, so a mount point
 * added to the contract type without an entry here fails to compile.
 *
 * | point        | holds                      | name                               | contract checked at mount                    |
 * |--------------|----------------------------|------------------------------------|----------------------------------------------|
 * | orchestrator | one module                 | optional label                     | an object or function                        |
 * | context      | one ContextManager         | optional label                     | the five ContextManager methods              |
 * | memory       | one Memory                 | optional label                     | the memory contract's methods (MEMORY.md)    |
 * | providers    | named Providers            | required, unique                   | getInfo()                                    |
 * | tools        | named Tools                | required, unique                   | definition and execute()                     |
 * | session      | alias of `context`         | must be "context" (Python form)    | as context                                   |
 *
 * Hooks are not a mount point: they register on `coordinator.hooks`.
 */
export const MOUNT_POINTS: Readonly<Record<MountPoint, { kind: "single" | "named" | "alias"; contract: string }>> = {
  orchestrator: { kind: "single", contract: "an orchestrator (an object or function)" },
  context: { kind: "single", contract: "a ContextManager (addMessage, getMessagesForRequest, getMessages, setMessages, clear)" },
  memory: { kind: "single", contract: "a Memory (createSession, addEvent, getSessionEvents, … see contracts/MEMORY.md)" },
  providers: { kind: "named", contract: "a Provider (getInfo())" },
  tools: { kind: "named", contract: "a Tool (definition and execute())" },
  session: { kind: "alias", contract: 'the context slot, written mount("session", ctx, "context")' },
};

export type ResolvedMount =
  | { kind: "single"; point: SingleMountPoint; name: string | undefined }
  | { kind: "named"; point: NamedMountPoint; name: string | undefined };

/**
 * Resolve (point, name) as given by a caller to the slot it addresses, or throw the typed error
 * that says what was wrong. `requireName` is true where a named point cannot do without one
 * (mount, unmount); `get` lists all modules of a named point when no name is given.
 */
export function resolveMount(point: unknown, name: unknown, requireName: boolean): ResolvedMount {
  if (typeof point !== "string" || !Object.hasOwn(MOUNT_POINTS, point)) {
    throw createError("UNKNOWN_MOUNT_POINT", undefined, {
      given: point,
      expected: `one of ${Object.keys(MOUNT_POINTS).join(", ")}`,
      hint: typeof point === "string" ? suggestPoint(point) : undefined,
    });
  }
  if (name !== undefined && (typeof name !== "string" || name.length === 0)) {
    throw createError("INVALID_ARGUMENT", "a mount name must be a non-empty string", { path: "name", given: name, expected: "a non-empty string" });
  }
  const known = point as MountPoint;
  if (known === "session") {
    if (name !== undefined && name !== "context") {
      throw createError("UNKNOWN_MOUNT_POINT", `"session" only holds the context, as mount("session", ctx, "context")`, {
        given: `session/${name}`,
        expected: 'name "context"',
        hint: 'use mount("context", ctx)',
      });
    }
    return { kind: "single", point: "context", name: undefined };
  }
  if (known === "orchestrator" || known === "context" || known === "memory") return { kind: "single", point: known, name };
  if (requireName && name === undefined) {
    throw createError("MOUNT_NAME_REQUIRED", undefined, {
      path: known,
      expected: `a name for the module at "${known}", e.g. mount("${known}", module, "my-${known.slice(0, -1)}")`,
    });
  }
  return { kind: "named", point: known, name };
}

/** Check that a value implements its mount point's contract; validate when it registers, not when it runs. */
export function assertMountable(point: SingleMountPoint | NamedMountPoint, module: unknown, name: string | undefined): void {
  const missing = missingMembers(point, module);
  if (missing === undefined) return;
  throw createError("MOUNT_CONTRACT_MISMATCH", undefined, {
    ...(name === undefined ? {} : { module: name }),
    path: point,
    expected: MOUNT_POINTS[point].contract,
    given: missing.length ? `${describeValue(module, 40)} without ${missing.join(", ")}` : module,
  });
}

/** undefined when the value fits; otherwise the missing members ([] when the value is not even an object). */
function missingMembers(point: SingleMountPoint | NamedMountPoint, module: unknown): string[] | undefined {
  const isObject = (typeof module === "object" && module !== null) || typeof module === "function";
  if (!isObject) return [];
  const v = module as Record<string, unknown>;
  const lacking = (keys: string[], type: "function" | "object") => keys.filter((k) => typeof v[k] !== type || v[k] === null);
  switch (point) {
    case "orchestrator":
      return undefined;
    case "context":
      return isContextManager(module)
        ? undefined
        : lacking(["addMessage", "getMessagesForRequest", "getMessages", "setMessages", "clear"], "function");
    case "memory":
      return orUndefined(missingMemoryMethods(module));
    case "providers":
      return orUndefined(lacking(["getInfo"], "function"));
    case "tools":
      return orUndefined([...lacking(["definition"], "object"), ...lacking(["execute"], "function")]);
  }
}

function orUndefined(missing: string[]): string[] | undefined {
  return missing.length ? missing : undefined;
}

function suggestPoint(point: string): string | undefined {
  const lower = point.trim().toLowerCase();
  if (lower === "hooks" || lower === "hook") return "hooks are not a mount point: register them on coordinator.hooks";
  const candidate = [lower, `${lower}s`, lower.replace(/s$/, "")].find((p) => Object.hasOwn(MOUNT_POINTS, p));
  return candidate === undefined ? undefined : `did you mean "${candidate}"?`;
}
