import { execFile } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { beforeEach, describe, expect, it } from "vitest";
import { compileTsModule } from "../../core/loader/compile-ts-module.js";
import { runCli } from "../../src/cli/main.js";
import { resetFixtureLog, fixtureLog } from "../loader/support.js";
import { runCliCollecting } from "../support/run-cli-collecting.js";

const CONFIGS = fileURLToPath(new URL("../fixtures/configs", import.meta.url));
const MODULES = fileURLToPath(new URL("../fixtures/modules", import.meta.url));

/** Run the CLI in-process, collecting what it writes. */
const cli = (...argv: string[]) => runCliCollecting(CONFIGS, argv);

beforeEach(resetFixtureLog);

describe("amplifier-ts validate", () => {
  it("mounts every module, prints the table, cleans up, exit 0", async () => {
    const { code, stdout, stderr } = await cli("validate", "full.amplifier.config.json");
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout).toBe(
      [
        "MODULE                          POINT          SOURCE   STATUS",
        "../modules/hook-module.js       hooks          path     ok",
        "@amplifier-fixture/legacy-hook  hooks          package  ok",
        "../modules/memory-context.mjs   context        path     ok",
        "amplifier-fixture-tool          tools:fixture  package  ok",
        "../modules/ts-module/index.ts   tools:greet    path     ok",
        "../modules/orchestrator.js      orchestrator   path     ok",
        `ok: 6 modules mounted from ${CONFIGS}/full.amplifier.config.json`,
        "",
      ].join("\n"),
    );
    expect(fixtureLog()).toContain("cleanup:full");
  });

  it("a required module failing: FAILED row, the error's code and message, exit 1, still cleaned up", async () => {
    const { code, stdout, stderr } = await cli("validate", "required-failure.amplifier.config.json");
    expect(code).toBe(1);
    expect(stdout).toBe(
      [
        "MODULE                         POINT         SOURCE  STATUS",
        "../modules/memory-context.mjs  context       path    ok",
        "../modules/echo-tool.js        tools:echo    path    ok",
        "../modules/throwing-module.js  tools:broken  path    FAILED: MODULE_MOUNT_FAILED",
        "../modules/echo-tool.js        tools:never   path    not mounted",
        "",
      ].join("\n"),
    );
    expect(stderr).toBe(
      'error: [MODULE_MOUNT_FAILED] mount() threw: the fixture refuses to mount (module "../modules/throwing-module.js", at tools[1])\n',
    );
    expect(fixtureLog().slice(-2)).toEqual(["cleanup:echo-tool:first", "cleanup:required-failure"]);
  });

  it("optional modules failing: skipped rows and warnings, exit 0", async () => {
    const { code, stdout, stderr } = await cli("validate", "optional-failure.amplifier.config.json");
    expect(code).toBe(0);
    expect(stdout).toContain("skipped (optional): MODULE_MOUNT_FAILED");
    expect(stdout).toContain("skipped (optional): MODULE_NOT_FOUND");
    expect(stderr).toContain("warning: optional tools[1] skipped: [MODULE_MOUNT_FAILED]");
    expect(stderr).toContain("warning: optional tools[2] skipped: [MODULE_NOT_FOUND]");
  });

  it("an invalid config file: every problem printed with code and path, exit 1", async () => {
    const { code, stdout, stderr } = await cli("validate", "many-errors.amplifier.config.json");
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toMatch(/^error: \[CONFIG_INVALID\] 5 problems:\n/);
    expect(stderr).toContain('  - hook: unknown key "hook"; expected one of the keys');
    expect(stderr).toContain('did you mean "hooks"?');
  });

  it("a module config problem, a JSON syntax error, a missing file: exit 1 with the code", async () => {
    const moduleConfig = await cli("validate", "bad-module-config.amplifier.config.json");
    expect(moduleConfig.code).toBe(1);
    expect(moduleConfig.stderr).toContain("error: [INVALID_MODULE_CONFIG] 2 problems:");
    expect(moduleConfig.stderr).toContain('session.context.config.max_tokens: unknown key "max_tokens"; expected one of the keys "maxTokens", "label"; given "max_tokens"; did you mean "maxTokens"?');

    const syntax = await cli("validate", "trailing-comma.amplifier.config.json");
    expect(syntax.code).toBe(1);
    expect(syntax.stderr).toContain("error: [CONFIG_PARSE_ERROR] invalid JSON at line 3, column 46");

    const missing = await cli("validate", "nope.json");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`error: [CONFIG_NOT_FOUND] The config file does not exist (file ${CONFIGS}/nope.json)`);
  });

  it("without an argument it validates ./amplifier.config.json", async () => {
    const dir = await mkdtemp(join(tmpdir(), "amplifier-cli-"));
    await writeFile(join(dir, "amplifier.config.json"), JSON.stringify({ session: { context: { module: `${MODULES}/memory-context.mjs` } } }));
    let stdout = "";
    const code = await runCli(["validate"], { stdout: { write: (c: string) => (stdout += c) }, stderr: { write: () => undefined }, cwd: dir });
    expect(code).toBe(0);
    expect(stdout).toContain(`ok: 1 module mounted from ${dir}/amplifier.config.json`);
  });

  it("--timeout sets the mount timeout; a bad value is a usage error", async () => {
    const dir = await mkdtemp(join(tmpdir(), "amplifier-cli-"));
    await writeFile(join(dir, "hang.json"), JSON.stringify({ session: { context: { module: `${MODULES}/hanging-module.js` } } }));
    const timedOut = await cli("validate", join(dir, "hang.json"), "--timeout", "20");
    expect(timedOut.code).toBe(1);
    expect(timedOut.stderr).toContain("[MODULE_MOUNT_TIMEOUT] mount() did not settle within 20 ms");
    const bad = await cli("validate", "--timeout", "soon");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('error: --timeout expects a whole number of milliseconds greater than 0, given "soon"');
  });
});

describe("amplifier-ts modules", () => {
  it("lists the built-ins with kind, version and description from their meta", async () => {
    const { code, stdout } = await cli("modules");
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^NAME\s+KIND\s+VERSION\s+DESCRIPTION$/);
    expect(lines[1]).toMatch(/^context-simple\s+context\s+\S+\s+\S/);
    expect(lines[2]).toMatch(/^context-persistent\s+context\s+\S+\s+\S/);
  });
});

describe("help and usage errors", () => {
  it("--help, -h and help print the program help, exit 0", async () => {
    for (const argv of [["--help"], ["-h"], ["help"]]) {
      const { code, stdout } = await cli(...argv);
      expect(code).toBe(0);
      expect(stdout).toContain("Usage: amplifier-ts <command> [options]");
      expect(stdout).toMatch(/validate \[config\]\s+Load, validate and mount/);
      expect(stdout).toMatch(/modules\s+List the built-in modules/);
    }
  });

  it.each(["validate", "modules"])("%s: <command> --help, <command> -h and help <command> print the command's help, exit 0", async (name) => {
    for (const argv of [[name, "--help"], [name, "-h"], ["help", name]]) {
      const { code, stdout, stderr } = await cli(...argv);
      expect(code).toBe(0);
      expect(stderr).toBe("");
      expect(stdout).toContain(`Usage: amplifier-ts ${name}`);
      expect(stdout).toMatch(/-h, --help\s+Show this help/);
    }
  });

  it("the validate help documents its argument and options", async () => {
    const { stdout } = await cli("validate", "--help");
    expect(stdout).toContain("Usage: amplifier-ts validate [config] [options]");
    expect(stdout).toMatch(/config\s+Config file \(default: \.\/amplifier\.config\.json if present, else the default session/);
    expect(stdout).toMatch(/--timeout <ms>\s+Mount timeout/);
  });

  it("an unknown command: error, suggestion and help on stderr, exit 2", async () => {
    const { code, stdout, stderr } = await cli("validat");
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toMatch(/^error: unknown command "validat"; did you mean "validate"\?\n\namplifier-ts — /);
    expect(stderr).toContain("Usage: amplifier-ts <command> [options]");
  });

  it("runCli itself rejects what is not an argv and an io", async () => {
    await expect(runCli("validate" as never, { stdout: process.stdout, stderr: process.stderr })).rejects.toMatchObject({ code: "INVALID_ARGUMENT", details: { path: "argv" } });
    await expect(runCli([], {} as never)).rejects.toMatchObject({ code: "INVALID_ARGUMENT", details: { path: "io" } });
  });

  it("no command at all: help on stderr, exit 2", async () => {
    const { code, stderr } = await cli();
    expect(code).toBe(2);
    expect(stderr).toContain("Usage: amplifier-ts <command> [options]");
  });

  it("an unknown option or an extra argument: error and the command's help, exit 2", async () => {
    const option = await cli("validate", "--fast");
    expect(option.code).toBe(2);
    expect(option.stderr).toMatch(/^error: Unknown option '--fast'\n\nUsage: amplifier-ts validate/);
    const extra = await cli("modules", "extra");
    expect(extra.code).toBe(2);
    expect(extra.stderr).toMatch(/^error: unexpected argument "extra"\n\nUsage: amplifier-ts modules/);
  });
});

describe("the executable", () => {
  it("starts with a node shebang and runs as a program (exit code and streams)", async () => {
    const source = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));
    const { readFile } = await import("node:fs/promises");
    expect((await readFile(source, "utf8")).startsWith("#!/usr/bin/env node\n")).toBe(true);
    // Compiled like a user's .ts module: a real Node process, no vitest in between.
    const compiled = await compileTsModule(source, { cacheDir: await mkdtemp(join(tmpdir(), "amplifier-cli-bin-")) });
    const run = promisify(execFile);
    const help = await run(process.execPath, [compiled.file, "--help"]);
    expect(help.stdout).toContain("Usage: amplifier-ts <command> [options]");
    const failure = await run(process.execPath, [compiled.file, "nope"]).catch((error: { code: number; stderr: string }) => error);
    expect(failure).toMatchObject({ code: 2 });
    expect((failure as { stderr: string }).stderr).toContain('unknown command "nope"');
  });
});
