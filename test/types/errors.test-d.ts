/**
 * The error registry is checked by the compiler on both sides: createError() takes only a
 * built-in code, a module's create() only the codes it defined (checked by `tsc --noEmit`).
 */
import { describe, expectTypeOf, it } from "vitest";
import { createError, defineErrorCodes, type AnyErrorCode, type ErrorCode, type ModuleErrorCode } from "../../contracts/errors.js";

describe("error codes are types", () => {
  it("createError accepts built-in codes only", () => {
    createError("CONFIG_INVALID");
    // @ts-expect-error — not a registered built-in code
    createError("CONFIG_INVALIDD");
    // @ts-expect-error — a module code goes through the module's own create()
    createError("STORE_POSTGRES/MIGRATION_FAILED");
  });

  it("a module's create() accepts its own codes only, and its codes are namespaced literal types", () => {
    const errors = defineErrorCodes("TYPE_TEST", { MIGRATION_FAILED: "A migration failed" });
    errors.create("MIGRATION_FAILED");
    // @ts-expect-error — not one of this module's codes
    errors.create("CONFIG_INVALID");
    expectTypeOf(errors.codes.MIGRATION_FAILED).toEqualTypeOf<"TYPE_TEST/MIGRATION_FAILED">();
    expectTypeOf(errors.codes.MIGRATION_FAILED).toMatchTypeOf<ModuleErrorCode>();
    expectTypeOf<ErrorCode>().toMatchTypeOf<AnyErrorCode>();
    expectTypeOf(errors.create("MIGRATION_FAILED").code).toEqualTypeOf<AnyErrorCode>();
  });
});
