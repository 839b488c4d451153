import {
  HOOK_ACTION_PRECEDENCE,
  type FoldedHookResult,
  type HookAction,
  type HookHandlerResult,
  type HookInjection,
  type HookUserMessage,
} from "@amplifier-ts/contracts";

/**
 * The fold: how the results of one dispatch become the one result `emit` returns.
 * The table in contracts/HOOKS.md is the specification; each row has a test in
 * core/test/hooks/fold-rules.test.ts.
 *
 * | handler returned   | effect on the dispatch                          | effect on the result                        |
 * |--------------------|-------------------------------------------------|---------------------------------------------|
 * | undefined          | none                                            | none (continue)                             |
 * | continue           | none                                            | none                                        |
 * | modify             | next handler receives `data`                    | `data` is the last modified data            |
 * | inject_context     | none                                            | appended to `injections`                    |
 * | ask_user           | none (a later deny still wins)                  | first ask_user's prompt/options/timeouts    |
 * | deny               | stops: no later handler runs                    | action deny, its reason                     |
 * | any + user_message | none                                            | appended to `userMessages`                  |
 *
 * The final action is the strongest seen (HOOK_ACTION_PRECEDENCE); on a tie the first wins.
 * The state is plain data, so the bus can fold results as they arrive and stop early on deny.
 */
export interface FoldState<P> {
  data: P;
  action: HookAction;
  decidedBy: string | undefined;
  decisive: HookHandlerResult<P> | undefined;
  injections: HookInjection[];
  userMessages: HookUserMessage[];
  suppressOutput: boolean;
  /** A deny was folded: dispatch must not call another handler. */
  stopped: boolean;
}

export function startFold<P>(data: P): FoldState<P> {
  return {
    data,
    action: "continue",
    decidedBy: undefined,
    decisive: undefined,
    injections: [],
    userMessages: [],
    suppressOutput: false,
    stopped: false,
  };
}

/** Fold one handler's (already validated) result into the state. `undefined` means continue. */
export function foldResult<P>(state: FoldState<P>, result: HookHandlerResult<P> | undefined, hook: string): void {
  if (result === undefined) return;
  if (result.user_message !== undefined) {
    state.userMessages.push({ message: result.user_message, level: result.user_message_level ?? "info", hook });
  }
  if (result.suppress_output) state.suppressOutput = true;

  switch (result.action) {
    case "modify":
      state.data = result.data as P;
      break;
    case "inject_context":
      state.injections.push({
        content: result.context_injection ?? "",
        role: result.context_injection_role ?? "system",
        ephemeral: result.ephemeral ?? false,
        hook,
      });
      break;
    case "deny":
      state.stopped = true;
      break;
    case "continue":
    case "ask_user":
      break;
  }

  if (HOOK_ACTION_PRECEDENCE[result.action] > HOOK_ACTION_PRECEDENCE[state.action]) {
    state.action = result.action;
    state.decidedBy = hook;
    state.decisive = result;
  }
}

/** The folded result. Summary fields are documented on FoldedHookResult. */
export function finishFold<P>(state: FoldState<P>): FoldedHookResult<P> {
  const out: FoldedHookResult<P> = {
    action: state.action,
    data: state.data,
    injections: state.injections,
    userMessages: state.userMessages,
  };
  const decisive = state.decisive;
  if (state.decidedBy !== undefined) out.decidedBy = state.decidedBy;
  if (decisive?.reason !== undefined) out.reason = decisive.reason;
  else if (state.action === "deny") out.reason = `denied by hook "${state.decidedBy}"`;

  if (state.action === "ask_user" && decisive) {
    if (decisive.approval_prompt !== undefined) out.approval_prompt = decisive.approval_prompt;
    if (decisive.approval_options !== undefined) out.approval_options = decisive.approval_options;
    if (decisive.approval_timeout !== undefined) out.approval_timeout = decisive.approval_timeout;
    if (decisive.approval_default !== undefined) out.approval_default = decisive.approval_default;
  }

  const [firstInjection] = state.injections;
  if (firstInjection) {
    out.context_injection = state.injections.map((i) => i.content).join("\n\n");
    out.context_injection_role = firstInjection.role;
    out.ephemeral = state.injections.every((i) => i.ephemeral);
  }
  const [firstMessage] = state.userMessages;
  if (firstMessage) {
    out.user_message = firstMessage.message;
    out.user_message_level = firstMessage.level;
  }
  if (state.suppressOutput) out.suppress_output = true;
  return out;
}
