import { describe, expect, it } from "vitest";
import { MOUNT_ORDER, planModules } from "../../core/loader/plan-modules.js";

describe("planModules", () => {
  it("orders the entries hooks, context, providers, tools, orchestrator, each list in file order", () => {
    const plan = planModules({
      session: { orchestrator: { module: "o" }, context: { module: "c" } },
      tools: [{ module: "t1", name: "a" }, { module: "t2", name: "b", optional: true }],
      providers: [{ module: "p", name: "p" }],
      hooks: [{ module: "h" }],
    });
    expect(MOUNT_ORDER).toEqual(["hooks", "embedder", "context", "memory", "stores", "providers", "tools", "orchestrator"]);
    expect(plan.map((e) => [e.path, e.specifier, e.name, e.optional])).toEqual([
      ["hooks[0]", "h", undefined, false],
      ["session.context", "c", undefined, false],
      ["providers[0]", "p", "p", false],
      ["tools[0]", "t1", "a", false],
      ["tools[1]", "t2", "b", true],
      ["session.orchestrator", "o", undefined, false],
    ]);
  });

  it("gives each module a shallow copy of its config: key edits stay local, instances stay themselves", () => {
    const client = { connect() {} };
    const config = { label: "x", client };
    const [context] = planModules({ session: { context: { module: "c", config } } });
    expect(context?.config).toEqual(config);
    expect(context?.config).not.toBe(config);
    expect(context?.config.client).toBe(client);
    expect(planModules({ session: { context: { module: "c" } } })[0]?.config).toEqual({});
  });
});
