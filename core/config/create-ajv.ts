import { Ajv, type AnySchemaObject, type Options } from "ajv";
import { Ajv2019 } from "ajv/dist/2019.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

/**
 * An ajv instance fit for a schema: draft 2020-12 and 2019-09 get their own dialect class, every
 * other schema is treated as draft-07 (what contracts/schemas use). Formats (`uri`, `date-time` …)
 * are known. `allErrors` because users fix a file once, not once per error; `verbose` because the
 * errors then carry the value and the schema, which become "given" and "expected".
 */
export function createAjv(schema: AnySchemaObject, options: Options = {}): Ajv {
  const dialect = typeof schema.$schema === "string" ? schema.$schema : "";
  const shared: Options = { allErrors: true, verbose: true, ...options };
  const ajv = dialect.includes("2020-12")
    ? new Ajv2020(shared)
    : dialect.includes("2019-09")
      ? new Ajv2019(shared)
      : new Ajv(shared);
  // ajv-formats is CommonJS with `exports.default`; under NodeNext the default import is the module object.
  addFormatsModule.default(ajv);
  return ajv;
}
