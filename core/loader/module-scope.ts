import type { CoordinatorContract, MountPoint } from "@amplifier-ts/contracts";
import type { HookBusContract } from "@amplifier-ts/contracts";
import { createError } from "@amplifier-ts/contracts";

/**
 * The coordinator as one module sees it during its mount: the same object, except that what the
 * module registers (mounts, cleanups, capabilities, hook handlers, observers) is recorded, so a
 * module that fails or times out half-way can be taken out again — nothing half-mounted stays.
 *
 * | state      | calls                          | recorded | rollback()                                  |
 * |------------|--------------------------------|----------|---------------------------------------------|
 * | mounting   | pass through                   | yes      | undoes everything, newest first             |
 * | committed  | pass through (mount succeeded) | no       | nothing to do                               |
 * | abandoned  | throw MODULE_ABANDONED         | —        | (already rolled back)                       |
 *
 * "Abandoned" exists for timeouts: the mount promise may still be running and must not sneak
 * registrations in after it was rolled back.
 */
export interface ModuleScope<C extends CoordinatorContract> {
  readonly coordinator: C;
  /** The mount succeeded: stop recording, keep everything. */
  commit(): void;
  /** Undo every recorded registration, newest first; all undos run; errors are returned. */
  rollback(): Promise<unknown[]>;
}

type State = "mounting" | "committed" | "abandoned";

export function createModuleScope<C extends CoordinatorContract>(coordinator: C, module: string): ModuleScope<C> {
  let state: State = "mounting";
  const undos: Array<() => unknown> = [];

  const guard = (what: string): void => {
    if (state === "abandoned") {
      throw createError("MODULE_ABANDONED", `${what} refused: the module's mount failed or timed out and was rolled back`, { module });
    }
  };
  /** Record an undo while mounting; the returned function forgets it (the module tore it down itself). */
  const record = (undo: () => unknown): (() => void) => {
    if (state !== "mounting") return () => undefined;
    undos.push(undo);
    return () => {
      const at = undos.lastIndexOf(undo);
      if (at !== -1) undos.splice(at, 1);
    };
  };

  const tracked = (unregister: () => void): (() => void) => {
    const forget = record(unregister);
    return () => {
      forget();
      unregister();
    };
  };

  const overrides = {
    async mount(point: MountPoint, value: unknown, name?: string): Promise<void> {
      guard("mount()");
      await coordinator.mount(point, value, name);
      record(() => coordinator.unmount(point, name));
    },
    registerCleanup(fn: () => unknown): () => void {
      guard("registerCleanup()");
      const unregister = coordinator.registerCleanup(fn);
      // Rolling back a module runs its cleanups now: they own resources it already acquired.
      const forget = record(async () => {
        unregister();
        await fn();
      });
      return () => {
        forget();
        unregister();
      };
    },
    registerCapability(name: string, value: unknown): () => void {
      guard("registerCapability()");
      return tracked(coordinator.registerCapability(name, value));
    },
  };

  const hooks = coordinator.hooks as HookBusContract;
  const hookOverrides = {
    register(...args: unknown[]) {
      guard("hooks.register()");
      return tracked((hooks.register as (...a: unknown[]) => () => void)(...args));
    },
    on(...args: [string, (...a: never[]) => void]) {
      guard("hooks.on()");
      return tracked((hooks.on as (...a: unknown[]) => () => void)(...args));
    },
  };
  const scopedHooks = passThrough(hooks, hookOverrides);
  const scoped = passThrough(coordinator, { ...overrides, hooks: scopedHooks });

  return {
    coordinator: scoped as C,
    commit() {
      if (state === "mounting") state = "committed";
      undos.length = 0;
    },
    async rollback() {
      state = "abandoned";
      const errors: unknown[] = [];
      for (const undo of undos.splice(0).reverse()) {
        try {
          await undo();
        } catch (error) {
          errors.push(error);
        }
      }
      return errors;
    },
  };
}

/**
 * A view of `target` where `overrides` replace some members. Other methods are bound to the
 * target, because classes with #private fields (Coordinator, HookBus) reject a proxy as `this`.
 * `instanceof` still holds: the prototype is the target's.
 */
function passThrough<T extends object>(target: T, overrides: Record<string, unknown>): T {
  return new Proxy(target, {
    get(object, property) {
      if (typeof property === "string" && Object.hasOwn(overrides, property)) return overrides[property];
      const value: unknown = Reflect.get(object, property, object);
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(object) : value;
    },
  });
}
