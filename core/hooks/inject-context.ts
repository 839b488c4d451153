import { randomUUID } from "node:crypto";
import type { ContextManager } from "@amplifier-ts/contracts";
import type { AmplifierEvents } from "@amplifier-ts/contracts";
import type { Message } from "@amplifier-ts/contracts";
import type { HookBusContract } from "@amplifier-ts/contracts";
import type { AnyHookResult, HookInjection } from "@amplifier-ts/contracts";
import { createError } from "@amplifier-ts/contracts";

/** What applying injections needs from the coordinator. */
export interface InjectionHost {
  readonly hooks: HookBusContract<AmplifierEvents>;
  readonly maxInjectionBytes: number;
  /** Largest total of the injections of one result (one emit), in UTF-8 bytes. */
  readonly maxInjectionTotalBytes: number;
  context(): ContextManager | undefined;
  /** Keep an ephemeral message for the next request (see takeEphemeralInjections). */
  holdEphemeral(message: Message): void;
}

/**
 * The injections a result asks for, in order: a folded result's `injections` list (authoritative,
 * each with its own hook), else the single `context_injection` of an `inject_context` result.
 * Injections are applied whatever the final action: a later deny does not undo earlier context.
 */
export function injectionsOf(result: AnyHookResult, hook: string): HookInjection[] {
  if (result.injections) return [...result.injections];
  if (result.action !== "inject_context" || !result.context_injection) return [];
  return [{ content: result.context_injection, role: result.context_injection_role ?? "system", ephemeral: result.ephemeral ?? false, hook }];
}

/**
 * Everything that can refuse injections, checked before any side effect: a context is mounted
 * (NO_CONTEXT_MOUNTED), each injection fits maxInjectionBytes and all of them together fit
 * maxInjectionTotalBytes (INJECTION_TOO_LARGE, naming the limit that was passed). A folded result
 * carries every handler's injections of one emit, so the total caps what one emit can add.
 * Returns the context to write to.
 */
export function checkInjections(host: InjectionHost, injections: readonly HookInjection[], event: string): ContextManager {
  const context = host.context();
  if (context === undefined) {
    throw createError("NO_CONTEXT_MOUNTED", "inject_context needs a mounted context manager", {
      hook: injections[0]?.hook,
      event,
      hint: 'mount one first: coordinator.mount("context", manager)',
    });
  }
  let total = 0;
  for (const injection of injections) {
    const bytes = Buffer.byteLength(injection.content, "utf8");
    if (bytes > host.maxInjectionBytes) {
      throw createError("INJECTION_TOO_LARGE", undefined, {
        hook: injection.hook,
        event,
        expected: `at most ${host.maxInjectionBytes} bytes (maxInjectionBytes)`,
        given: `${bytes} bytes`,
        bytes,
        limit: host.maxInjectionBytes,
        hint: "inject less, or raise the coordinator's maxInjectionBytes",
      });
    }
    total += bytes;
  }
  if (total > host.maxInjectionTotalBytes) {
    throw createError("INJECTION_TOO_LARGE", `${injections.length} injections of one result total ${total} bytes`, {
      hook: [...new Set(injections.map((i) => i.hook))].join(", "),
      event,
      expected: `at most ${host.maxInjectionTotalBytes} bytes in all (maxInjectionTotalBytes)`,
      given: `${total} bytes in ${injections.length} injections`,
      bytes: total,
      limit: host.maxInjectionTotalBytes,
      injections: injections.length,
      hint: "inject less per event, or raise the coordinator's maxInjectionTotalBytes",
    });
  }
  return context;
}

/**
 * Events before the conversation: a stored system/developer injection made during one of them
 * (project context, house rules) is an INSTRUCTION — kept first in every window.
 */
export const SESSION_SETUP_EVENTS: ReadonlySet<string> = new Set(["session:start", "session:resume", "session:fork"]);

/**
 * Whether a stored injection is a TURN NOTE (metadata.scope "turn"): a system/developer message
 * injected after the session started (prompt:submit, tool:post, …). A note belongs to the turn it
 * was injected in: the window sends it in stored order and cuts it with that turn, instead of
 * keeping it first in every window as an instruction (contracts/WINDOW.md, "Notes"). User and
 * assistant injections are conversation anyway and are not marked.
 */
export function isTurnNoteInjection(role: HookInjection["role"], event: string): boolean {
  return (role === "system" || role === "developer") && !SESSION_SETUP_EVENTS.has(event);
}

/**
 * Turn injections into messages (checkInjections first). Each message: role = the injection's
 * role, metadata { id, timestamp, source: "hook", hook, event } (+ ephemeral: true; + scope:
 * "turn" for a stored system/developer injection outside session:start/resume/fork — a turn note).
 * Stored ones go through context.addMessage; ephemeral ones are held for the next request only.
 * `context:include` is emitted for each, after it is applied.
 */
export async function applyInjections(host: InjectionHost, injections: HookInjection[], event: string): Promise<Message[]> {
  if (injections.length === 0) return [];
  const context = checkInjections(host, injections, event);
  const messages: Message[] = [];
  for (const injection of injections) {
    const message: Message = {
      role: injection.role,
      content: injection.content,
      metadata: { id: randomUUID(), timestamp: new Date().toISOString(), source: "hook", hook: injection.hook, event },
    };
    if (injection.ephemeral) {
      message.metadata!.ephemeral = true;
      host.holdEphemeral(structuredClone(message));
    } else {
      if (isTurnNoteInjection(injection.role, event)) message.metadata!.scope = "turn";
      await context.addMessage(structuredClone(message));
    }
    messages.push(message);
    await host.hooks.emit("context:include", {
      source: "hook",
      content: injection.content,
      ephemeral: injection.ephemeral,
      role: injection.role,
      hook: injection.hook,
      event,
    });
  }
  return messages;
}
