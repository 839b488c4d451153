import { describeContextManagerContract } from "../../testing/index.js";
import { createSession } from "../../src/session/index.js";

// The built-in context modules run the exported conformance suite, mounted the way users mount
// them: through createSession and the loader. One file per module configuration, so the test
// runner spreads their property suites (10,000 cases each in CI) over its workers.

describeContextManagerContract("context-simple", async () => {
  const session = await createSession({ session: { context: { module: "context-simple", config: {} } } });
  return { context: session.context, hooks: session.hooks, close: session.close };
});
