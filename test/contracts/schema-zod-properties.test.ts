import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CONTRACT_VALIDATORS } from "../../contracts/validators/registry.js";
import { isDateTime } from "../../contracts/validators/date-time.js";
import { messageSchema } from "../../contracts/validators/message.js";
import { dateTimeArb, messageArb } from "./message-arbitrary.js";
import { edgyJsonValue, mutationOf } from "./json-mutations.js";
import { ajvValidators, fixtures } from "./schema-catalog.js";

/**
 * Property-based drift checks, beyond the hand-picked fixtures: documents generated from the
 * schema are accepted by both validators, and any single random edit of a valid document gets
 * the same verdict from both (whatever that verdict is).
 */
const ajv = ajvValidators();
const validateMessageJson = ajv.get("message")!;
const RUNS = { numRuns: 400 };

describe("Message: JSON Schema and zod agree on generated messages", () => {
  it("every message the arbitrary makes is accepted by both", () => {
    fc.assert(
      fc.property(messageArb, (message) => {
        expect(validateMessageJson(message), JSON.stringify(validateMessageJson.errors)).toBe(true);
        expect(messageSchema.safeParse(message).success).toBe(true);
      }),
      RUNS,
    );
  });

  it("every single edit of a valid message gets the same verdict from both", () => {
    let rejected = 0;
    fc.assert(
      fc.property(
        messageArb.chain((message) => mutationOf(message)),
        (mutated) => {
          const byJsonSchema = validateMessageJson(mutated);
          expect(messageSchema.safeParse(mutated).success, JSON.stringify(mutated)).toBe(byJsonSchema);
          if (!byJsonSchema) rejected++;
        },
      ),
      { numRuns: 1500 },
    );
    // The edits must mostly produce invalid messages, or the property would prove little.
    expect(rejected).toBeGreaterThan(500);
  });
});

describe.each(Object.keys(CONTRACT_VALIDATORS))("%s: JSON Schema and zod agree on random edits of the valid fixtures", (name) => {
  const zod = CONTRACT_VALIDATORS[name as keyof typeof CONTRACT_VALIDATORS];
  const validateJson = ajv.get(name)!;
  const valid = fixtures(name, "valid").map((f) => f.document);

  it("same verdict on every edit", () => {
    expect(valid.length).toBeGreaterThan(0);
    fc.assert(
      fc.property(
        fc.constantFrom(...valid).chain((document) => mutationOf(document)),
        (mutated) => {
          expect(zod.safeParse(mutated).success, JSON.stringify(mutated)).toBe(validateJson(mutated));
        },
      ),
      RUNS,
    );
  });

  it("same verdict on arbitrary JSON", () => {
    fc.assert(
      fc.property(edgyJsonValue, (value) => {
        expect(zod.safeParse(value).success).toBe(validateJson(value));
      }),
      { numRuns: 200 },
    );
  });
});

describe("metadata.timestamp: isDateTime is ajv-formats' date-time", () => {
  const ajvDateTime = (text: string) => validateMessageJson({ role: "user", content: "", metadata: { timestamp: text } });

  it("accepts every generated RFC 3339 date-time", () => {
    fc.assert(fc.property(dateTimeArb, (text) => {
          expect(isDateTime(text), text).toBe(true);
        }), RUNS);
  });

  it("agrees with ajv on near-misses: any character of a date-time replaced, dropped or doubled", () => {
    const nearMiss = fc
      .tuple(dateTimeArb, fc.nat(), fc.constantFrom(..."0123456789-:.TtZz+ x9"), fc.constantFrom("replace", "drop", "double"))
      .map(([text, at, char, how]) => {
        const i = at % text.length;
        if (how === "drop") return text.slice(0, i) + text.slice(i + 1);
        if (how === "double") return text.slice(0, i + 1) + text.slice(i);
        return text.slice(0, i) + char + text.slice(i + 1);
      });
    fc.assert(fc.property(nearMiss, (text) => {
          expect(isDateTime(text), text).toBe(ajvDateTime(text));
        }), { numRuns: 2000 });
  });
});
