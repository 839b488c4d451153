import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

/**
 * contracts/generated/** is derived from contracts/schemas/** by `npm run contracts`
 * (contracts/generate.mjs). The first test is the guard: it fails while the checked-in types
 * are stale. The others pin down the generator on a scratch copy of the contracts folder.
 */
const REPO = fileURLToPath(new URL("../../", import.meta.url));
const GENERATOR = join(REPO, "contracts", "generate.mjs");

function run(...args: string[]) {
  const result = spawnSync(process.execPath, [GENERATOR, ...args], { encoding: "utf8" });
  return { status: result.status, out: `${result.stdout}${result.stderr}` };
}

const scratch: string[] = [];
afterEach(() => {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A copy of contracts/schemas and contracts/generated to break on purpose. */
function scratchRoot(): string {
  const root = mkdtempSync(join(tmpdir(), "amplifier-contracts-"));
  scratch.push(root);
  cpSync(join(REPO, "contracts", "schemas"), join(root, "contracts", "schemas"), { recursive: true });
  cpSync(join(REPO, "contracts", "generated"), join(root, "contracts", "generated"), { recursive: true });
  return root;
}

function editSchema(root: string, name: string, edit: (schema: Record<string, any>) => void): void {
  const file = join(root, "contracts", "schemas", `${name}.schema.json`);
  const schema = JSON.parse(readFileSync(file, "utf8"));
  edit(schema);
  writeFileSync(file, JSON.stringify(schema, null, 2));
}

describe("generated contract types", () => {
  it("are up to date with the JSON Schemas (run `npm run contracts` when this fails)", () => {
    const { status, out } = run("--check");
    expect(status, out).toBe(0);
  });

  it("--check lists a stale file, writes nothing and exits 1", () => {
    const root = scratchRoot();
    editSchema(root, "provider-info", (s) => (s.properties.region = { type: "string" }));
    const before = readFileSync(join(root, "contracts/generated/provider-info.ts"), "utf8");
    const { status, out } = run("--check", "--root", root);
    expect(status).toBe(1);
    expect(out).toContain("contracts/generated/provider-info.ts  (differs from its schema)");
    expect(out).not.toContain("message.ts");
    expect(readFileSync(join(root, "contracts/generated/provider-info.ts"), "utf8")).toBe(before);
  });

  it("writing regenerates the stale file, after which --check passes", () => {
    const root = scratchRoot();
    editSchema(root, "provider-info", (s) => (s.properties.region = { type: "string" }));
    expect(run("--root", root).status).toBe(0);
    expect(readFileSync(join(root, "contracts/generated/provider-info.ts"), "utf8")).toContain("region?: string;");
    expect(run("--check", "--root", root).status).toBe(0);
  });

  it("is deterministic: generating twice gives the same bytes, with the banner naming the schema", () => {
    const root = scratchRoot();
    rmSync(join(root, "contracts", "generated"), { recursive: true });
    expect(run("--root", root).status).toBe(0);
    const first = readFileSync(join(root, "contracts/generated/message.ts"), "utf8");
    rmSync(join(root, "contracts", "generated"), { recursive: true });
    expect(run("--root", root).status).toBe(0);
    expect(readFileSync(join(root, "contracts/generated/message.ts"), "utf8")).toBe(first);
    expect(first).toContain("Generated from contracts/schemas/message.schema.json by `npm run contracts`");
    expect(first).toContain("do not edit");
  });

  it("a new schema, including one in a subfolder, gets its file and an index entry", () => {
    const root = scratchRoot();
    mkdirSync(join(root, "contracts/schemas/tools"), { recursive: true });
    writeFileSync(
      join(root, "contracts/schemas/tools/echo-tool.schema.json"),
      JSON.stringify({ $schema: "http://json-schema.org/draft-07/schema#", title: "EchoToolInput", type: "object", properties: { prefix: { type: "string" } }, additionalProperties: false }),
    );
    const check = run("--check", "--root", root);
    expect(check.status).toBe(1);
    expect(check.out).toContain("contracts/generated/tools/echo-tool.ts  (missing)");
    expect(check.out).toContain("contracts/generated/index.ts  (differs from its schema)");
    expect(run("--root", root).status).toBe(0);
    expect(readFileSync(join(root, "contracts/generated/index.ts"), "utf8")).toContain('export type { EchoToolInput } from "./tools/echo-tool.js";');
  });

  it("the module schema copies under contracts/schemas/modules/ get no types (module options are typed by their modules)", () => {
    const root = scratchRoot();
    writeFileSync(
      join(root, "contracts/schemas/modules/echo-tool.config.schema.json"),
      JSON.stringify({ $schema: "http://json-schema.org/draft-07/schema#", title: "EchoToolConfig", type: "object", properties: { prefix: { type: "string" } }, additionalProperties: false }),
    );
    const check = run("--check", "--root", root);
    expect(check.status, check.out).toBe(0);
    expect(readFileSync(join(REPO, "contracts/generated/index.ts"), "utf8")).not.toContain("./modules/");
  });

  it("a generated file whose schema is gone is stale and deleted; a hand-written file is left alone", () => {
    const root = scratchRoot();
    rmSync(join(root, "contracts/schemas/provider-info.schema.json"));
    writeFileSync(join(root, "contracts/generated/hand-written.ts"), "export type Mine = 1;\n");
    const check = run("--check", "--root", root);
    expect(check.status).toBe(1);
    expect(check.out).toContain("contracts/generated/provider-info.ts  (no schema generates it)");
    expect(check.out).not.toContain("hand-written");
    expect(run("--root", root).status).toBe(0);
    expect(existsSync(join(root, "contracts/generated/provider-info.ts"))).toBe(false);
    expect(existsSync(join(root, "contracts/generated/hand-written.ts"))).toBe(true);
  });

  it("a description-only property is typed unknown (it admits any JSON value), not an object", () => {
    expect(readFileSync(join(REPO, "contracts/generated/hook-result.ts"), "utf8")).toMatch(/^ {2}data\?: unknown;$/m);
  });

  it("an array with minItems stays an array type, not a tuple", () => {
    expect(readFileSync(join(REPO, "contracts/generated/message.ts"), "utf8")).toMatch(/^ {2}tool_calls\?: ToolCall\[\];$/m);
  });

  it("two schemas declaring the same type name are refused", () => {
    const root = scratchRoot();
    editSchema(root, "provider-info", (s) => (s.title = "HookResult"));
    const { status, out } = run("--check", "--root", root);
    expect(status).toBe(2);
    expect(out).toContain("type HookResult is declared by both hook-result.schema.json and provider-info.schema.json");
  });

  it("an unknown argument is refused with the usage", () => {
    const { status, out } = run("--chek");
    expect(status).toBe(2);
    expect(out).toContain("usage: node contracts/generate.mjs [--check] [--root DIR]");
  });
});
