import * as incubating from "@opentelemetry/semantic-conventions/incubating";
import { ATTR_ERROR_TYPE } from "@opentelemetry/semantic-conventions";
import { describe, expect, it } from "vitest";
import { ERROR_TYPE, GEN_AI, GEN_AI_OPERATION, PROVIDER_NAMES, SESSION_ID } from "../index.js";

/**
 * The names copied in attributes.ts are the conventions' own, checked against the published
 * @opentelemetry/semantic-conventions (incubating entry: the GenAI names are still "development").
 * A name renamed or dropped upstream fails here, not in a user's dashboard.
 */
const published = incubating as unknown as Record<string, unknown>;

describe("the GenAI names are the semantic conventions' names", () => {
  it.each(Object.entries(GEN_AI))("GEN_AI.%s is ATTR_GEN_AI_%s", (key, name) => {
    expect(published[`ATTR_GEN_AI_${key}`]).toBe(name);
  });

  it("operation names and provider names are well-known values; error.type is the stable attribute, session.id the general one", () => {
    for (const [key, value] of Object.entries(GEN_AI_OPERATION)) expect(published[`GEN_AI_OPERATION_NAME_VALUE_${key}`]).toBe(value);
    const providers = new Set(Object.entries(published).filter(([k]) => k.startsWith("GEN_AI_PROVIDER_NAME_VALUE_")).map(([, v]) => v));
    for (const name of new Set(Object.values(PROVIDER_NAMES))) expect(providers).toContain(name);
    expect(ERROR_TYPE).toBe(ATTR_ERROR_TYPE);
    expect(SESSION_ID).toBe(published.ATTR_SESSION_ID);
  });

});
