import { describe, expect, it } from "vitest";
import { AmplifierError, createError, defineErrorCodes, isAmplifierError, registeredErrorCodes, ERROR_CODES } from "../../contracts/errors.js";

/** The registry opened to modules: a module's codes are namespaced, typed and carry their template. */
describe("defineErrorCodes: a module's own error codes", () => {
  const fixture = defineErrorCodes("TEST_FIXTURE_STORE", {
    MIGRATION_FAILED: "A schema migration of the fixture store failed",
    TABLE_MISSING: "The fixture store's table does not exist",
  });

  it("namespaces each code and builds AmplifierErrors whose message starts with the template", () => {
    expect(fixture.codes).toEqual({ MIGRATION_FAILED: "TEST_FIXTURE_STORE/MIGRATION_FAILED", TABLE_MISSING: "TEST_FIXTURE_STORE/TABLE_MISSING" });
    const error = fixture.create("MIGRATION_FAILED", undefined, { module: "fixture-store", expected: "version 3" });
    expect(error).toBeInstanceOf(AmplifierError);
    expect(error.code).toBe("TEST_FIXTURE_STORE/MIGRATION_FAILED");
    expect(error.message).toBe('[TEST_FIXTURE_STORE/MIGRATION_FAILED] A schema migration of the fixture store failed (module "fixture-store"); expected version 3');
    expect(fixture.create("TABLE_MISSING", "table amp_messages").message).toBe("[TEST_FIXTURE_STORE/TABLE_MISSING] table amp_messages");
  });

  it("is() and isAmplifierError() recognise module codes", () => {
    const error = fixture.create("TABLE_MISSING");
    expect(fixture.is(error)).toBe(true);
    expect(fixture.is(error, "TABLE_MISSING")).toBe(true);
    expect(fixture.is(error, "MIGRATION_FAILED")).toBe(false);
    expect(fixture.is(createError("STORE_CLOSED"))).toBe(false);
    expect(fixture.is(new Error("TEST_FIXTURE_STORE/TABLE_MISSING"))).toBe(false);
    expect(isAmplifierError(error, "TEST_FIXTURE_STORE/TABLE_MISSING")).toBe(true);
    expect(isAmplifierError(error, "STORE_CLOSED")).toBe(false);
  });

  it("registers the codes next to the built-ins", () => {
    const registered = registeredErrorCodes();
    for (const [code, template] of Object.entries(ERROR_CODES)) expect(registered.get(code as keyof typeof ERROR_CODES)).toBe(template);
    expect(registered.get("TEST_FIXTURE_STORE/MIGRATION_FAILED")).toBe("A schema migration of the fixture store failed");
  });

  it("allows the same registration twice (a package loaded twice), never a code with another meaning", () => {
    expect(() => defineErrorCodes("TEST_FIXTURE_STORE", { TABLE_MISSING: "The fixture store's table does not exist" })).not.toThrow();
    const clash = catchError(() => defineErrorCodes("TEST_FIXTURE_STORE", { TABLE_MISSING: "Something else" }));
    expect(clash).toMatchObject({ code: "INVALID_ARGUMENT", details: { path: "templates.TABLE_MISSING", given: "Something else" } });
    // All or nothing: a refused registration leaves no code of it behind.
    expect(() => defineErrorCodes("TEST_PARTIAL", { FIRST: "first", second: "lower case" })).toThrow(AmplifierError);
    expect(registeredErrorCodes().has("TEST_PARTIAL/FIRST")).toBe(false);
  });

  it("refuses a namespace or code that is not upper snake case, and an empty template", () => {
    expect(catchError(() => defineErrorCodes("store-postgres", { X: "x" }))).toMatchObject({ code: "INVALID_ARGUMENT", details: { path: "namespace", given: "store-postgres" } });
    expect(catchError(() => defineErrorCodes("TEST_BAD", { "no/slash": "x" }))).toMatchObject({ code: "INVALID_ARGUMENT", details: { path: "templates.no/slash" } });
    expect(catchError(() => defineErrorCodes("TEST_BAD", { EMPTY: "" }))).toMatchObject({ code: "INVALID_ARGUMENT", details: { path: "templates.EMPTY", expected: "a non-empty string" } });
  });
});

function catchError(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("expected an error");
}
