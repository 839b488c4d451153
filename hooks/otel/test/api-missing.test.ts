import { describe, expect, it, vi } from "vitest";
import { Coordinator } from "../../../core/coordinator.js";

// As if @opentelemetry/api were not installed: importing it fails.
vi.mock("@opentelemetry/api", () => {
  throw Object.assign(new Error("Cannot find package '@opentelemetry/api'"), { code: "ERR_MODULE_NOT_FOUND" });
});

describe("without @opentelemetry/api (an optional peer)", () => {
  it("the package still loads; mount says so with OTEL/API_MISSING and what to install", async () => {
    const { mount, otelHooks } = await import("../index.js");
    const coordinator = new Coordinator();
    let thrown: unknown;
    try {
      mount(coordinator, {});
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ code: "OTEL/API_MISSING" });
    expect((thrown as Error).message).toMatch(/mount\(\): install @opentelemetry\/api/);
    expect(() => otelHooks(coordinator.hooks)).toThrow(/OTEL\/API_MISSING/);
  });
});
