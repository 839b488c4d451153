import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import type { AmplifierConfig } from "@amplifier-ts/contracts";
import { createError } from "@amplifier-ts/contracts";
import { parseJson } from "./parse-json.js";
import { validateConfig } from "./validate-config.js";

/** The file every tool looks for when no config is named. */
export const DEFAULT_CONFIG_FILE = "amplifier.config.json";

/** A validated config and where it came from; relative module paths resolve from `baseDir`. */
export interface LoadedConfig {
  config: AmplifierConfig;
  /** Absolute path of the file, or undefined for a config given as an object. */
  file: string | undefined;
  baseDir: string;
}

/**
 * Read, parse and validate a config file. Errors: CONFIG_NOT_FOUND (no such file),
 * CONFIG_PARSE_ERROR (not JSON; line and column of the first syntax error), CONFIG_INVALID
 * (every schema problem at once, see validateConfig).
 */
export async function loadConfig(path: string, cwd: string = process.cwd()): Promise<LoadedConfig> {
  if (typeof path !== "string" || path === "" || typeof cwd !== "string") {
    throw createError("INVALID_ARGUMENT", "loadConfig() needs a file path (and optionally a folder to resolve it from)", {
      path: typeof path !== "string" || path === "" ? "path" : "cwd",
      expected: "a non-empty string",
      given: typeof path !== "string" || path === "" ? path : cwd,
    });
  }
  const file = resolve(cwd, path);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") {
      throw createError("CONFIG_NOT_FOUND", undefined, { file, expected: "an existing JSON file", cause });
    }
    throw createError("CONFIG_NOT_FOUND", `The config file cannot be read (${code ?? "unknown error"})`, { file, cause });
  }
  return { config: parseConfigText(text, file), file, baseDir: dirname(file) };
}

/** Parse and validate the text of a config file; `file` is only used in error details. */
export function parseConfigText(text: string, file?: string): AmplifierConfig {
  const parsed = parseJson(text);
  if (!parsed.ok) {
    const { line, column, reason } = parsed.problem;
    throw createError("CONFIG_PARSE_ERROR", `invalid JSON at line ${line}, column ${column}: ${reason}`, {
      ...(file === undefined ? {} : { file }),
      line,
      column,
      expected: "valid JSON (no comments, no trailing commas)",
    });
  }
  return validateConfig(parsed.value, file === undefined ? {} : { file });
}

/** Validate a config given as an object (createSession's inline form); relative paths resolve from `cwd`. */
export function configFromObject(value: unknown, cwd: string = process.cwd()): LoadedConfig {
  return { config: validateConfig(value), file: undefined, baseDir: resolve(cwd) };
}
