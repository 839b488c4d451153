/**
 * fitWindow and createWindowFitter import as functions from the umbrella's root and from
 * @amplifier-ts/window — the BUILT packages, in a fresh Node process, as a user's code gets them.
 */
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";

const ROOT = new URL("../..", import.meta.url).pathname;

describe("fitWindow's import paths", () => {
  it("amplifier-ts and @amplifier-ts/window export both names, the same functions", () => {
    const script = `
      const root = await import("amplifier-ts");
      const window = await import("@amplifier-ts/window");
      const out = root.fitWindow([{ role: "user", content: "hi" }], { budget: 100 });
      console.log(JSON.stringify({
        kinds: [typeof root.fitWindow, typeof root.createWindowFitter, typeof window.fitWindow, typeof window.createWindowFitter],
        same: root.fitWindow === window.fitWindow && root.createWindowFitter === window.createWindowFitter,
        out,
      }));`;
    const printed = execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: ROOT, encoding: "utf8" });
    expect(JSON.parse(printed)).toEqual({ kinds: ["function", "function", "function", "function"], same: true, out: [{ role: "user", content: "hi" }] });
  });
});
