import { mount } from "amplifier-module-context-example";
import { describeContextManagerContract } from "../../testing/context-manager-contract.js";
import { Coordinator } from "../../core/coordinator.js";
import { createSession } from "../../src/session/index.js";
import { getTokenCounter } from "../../modules/tokens/index.js";

/**
 * The third-party example runs the same conformance suite as the built-in context modules.
 *
 * 1. Loaded the way a user loads it — by package name through createSession — with the host's
 *    exact token counting (the "tokens" capability every createSession registers).
 * 2. Mounted on a bare Coordinator with no "tokens" capability: the module counts with its peer
 *    @amplifier-ts/tokens' getTokenCounter, and every invariant must still hold.
 */
const PACKAGE = "amplifier-module-context-example";

describeContextManagerContract(PACKAGE, async () => {
  const session = await createSession({ session: { context: { module: PACKAGE, config: { maxTurns: 6 } } } });
  if (session.coordinator.getCapability("tokens") === undefined) throw new Error("createSession must offer the tokens capability");
  return { context: session.context, hooks: session.hooks, close: session.close };
});

describeContextManagerContract(`${PACKAGE} (no tokens capability: core's getTokenCounter)`, async () => {
  const coordinator = new Coordinator();
  const context = await mount(coordinator, { maxTurns: 6 });
  return { context, hooks: coordinator.hooks, close: () => coordinator.cleanup() };
});
