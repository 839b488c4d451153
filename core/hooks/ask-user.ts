import {
  APPROVAL_CAPABILITY,
  type ApprovalCapability,
  type ApprovalRequest,
  type HookResultOutcome,
} from "@amplifier-ts/contracts";
import type { AmplifierEvents } from "@amplifier-ts/contracts";
import type { HookBusContract } from "@amplifier-ts/contracts";
import type { AnyHookResult } from "@amplifier-ts/contracts";

/** What resolving an `ask_user` result needs from the coordinator. */
export interface ApprovalHost {
  readonly hooks: HookBusContract<AmplifierEvents>;
  getCapability<T>(name: string): T | undefined;
}

type Decision = Pick<HookResultOutcome, "action" | "approved" | "decision" | "reason">;

/**
 * Resolve an `ask_user` result through the "approval" capability. Never a silent allow:
 *
 * | situation                                        | outcome                                        |
 * |--------------------------------------------------|------------------------------------------------|
 * | no capability, or one without requestApproval    | deny, reason says no approval capability       |
 * | answer "allow", or an offered option not "deny…" | continue, approved                             |
 * | answer "deny" or an option starting with "deny"  | deny                                           |
 * | answer not "allow"/"deny"/an offered option      | deny, reason names the answer                  |
 * | capability throws                                | deny, reason carries the error                 |
 * | approval_timeout passes first                    | approval_default (default "deny")              |
 *
 * `approval:required` is emitted before asking; `approval:granted` / `approval:denied` after.
 */
export async function resolveAskUser(host: ApprovalHost, result: AnyHookResult, event: string, hook: string): Promise<Decision> {
  const request: ApprovalRequest = {
    prompt: result.approval_prompt ?? result.reason ?? `Hook "${hook}" asks for approval during ${event}`,
    options: result.approval_options ?? ["allow", "deny"],
    default: result.approval_default ?? "deny",
    hook,
    event,
  };
  if (result.approval_timeout !== undefined) request.timeout = result.approval_timeout;
  await host.hooks.emit("approval:required", {
    prompt: request.prompt,
    options: request.options,
    hook,
    event,
    ...(request.timeout === undefined ? {} : { timeout: request.timeout }),
  });

  const capability = host.getCapability<Partial<ApprovalCapability>>(APPROVAL_CAPABILITY);
  if (typeof capability?.requestApproval !== "function") {
    const reason = capability === undefined
      ? `no "${APPROVAL_CAPABILITY}" capability is registered, so ask_user from hook "${hook}" is denied`
      : `the "${APPROVAL_CAPABILITY}" capability has no requestApproval(), so ask_user from hook "${hook}" is denied`;
    return deny(host, request, reason);
  }

  let answer: unknown;
  try {
    const requestApproval = capability.requestApproval.bind(capability);
    // A synchronous throw and a rejection are the same failure.
    answer = await withTimeout(Promise.resolve().then(() => requestApproval(request)), request.timeout);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return deny(host, request, `approval failed: ${message}`);
  }
  if (answer === TIMED_OUT) {
    if (request.default === "allow") return grant(host, request, "allow");
    return deny(host, request, `no answer within ${request.timeout} s; the default is deny`, "deny");
  }
  if (typeof answer !== "string" || (answer !== "allow" && answer !== "deny" && !request.options.includes(answer))) {
    return deny(host, request, `the approval answer ${JSON.stringify(answer)} is not "allow", "deny" or an offered option`);
  }
  if (/^deny\b/i.test(answer)) return deny(host, request, result.reason ?? `denied by the user (${answer})`, answer);
  return grant(host, request, answer);
}

const TIMED_OUT = Symbol("timed out");

async function grant(host: ApprovalHost, request: ApprovalRequest, decision: string): Promise<Decision> {
  await host.hooks.emit("approval:granted", { prompt: request.prompt, decision, hook: request.hook, event: request.event });
  return { action: "continue", approved: true, decision };
}

async function deny(host: ApprovalHost, request: ApprovalRequest, reason: string, decision?: string): Promise<Decision> {
  await host.hooks.emit("approval:denied", {
    prompt: request.prompt,
    reason,
    hook: request.hook,
    event: request.event,
    ...(decision === undefined ? {} : { decision }),
  });
  return decision === undefined ? { action: "deny", approved: false, reason } : { action: "deny", approved: false, decision, reason };
}

/** `seconds` undefined: wait as long as the capability takes (it got the timeout and may enforce it). */
async function withTimeout<T>(promise: Promise<T>, seconds: number | undefined): Promise<T | typeof TIMED_OUT> {
  if (seconds === undefined || seconds * 1000 > 2_147_483_647) return promise;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), seconds * 1000);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
