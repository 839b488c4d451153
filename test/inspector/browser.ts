import { existsSync, mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import type { Message } from "@amplifier-ts/contracts";

/**
 * Real Chromium for the Inspector's browser tests: Debian's `chromium` package, driven by
 * playwright-core (which downloads no browser). `.ci/run` installs it; a missing browser fails the
 * tests loudly instead of skipping them.
 */
export const CHROMIUM = process.env.AMPLIFIER_CHROMIUM ?? "/usr/bin/chromium";

/** Screenshots of the browser tests: test artifacts, gitignored (.cache/), never committed. */
export const ARTIFACTS = fileURLToPath(new URL("../../.cache/artifacts/inspector/", import.meta.url));

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium is not installed at ${CHROMIUM}: apt-get install -y chromium (.ci/run does), or set AMPLIFIER_CHROMIUM`);
  mkdirSync(ARTIFACTS, { recursive: true });
  // As root (CI containers) Chromium refuses its sandbox.
  const args = process.getuid?.() === 0 ? ["--no-sandbox"] : [];
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args });
}

/** What a page did that it must not: dialogs opened, CSP violations and script errors reported. */
export interface PageWatch {
  dialogs: string[];
  violations: string[];
  errors: string[];
}

export function watchPage(page: Page): PageWatch {
  const watch: PageWatch = { dialogs: [], violations: [], errors: [] };
  page.on("dialog", (dialog) => {
    watch.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on("console", (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) watch.violations.push(message.text());
  });
  page.on("pageerror", (error) => watch.errors.push(error.message));
  return watch;
}

/** Untrusted content that would run if the page ever rendered data as markup or followed it. */
export const HOSTILE = {
  img: `<img src=x onerror="window.__pwned='img';alert('img')">`,
  script: `</script><script>window.__pwned='script';alert('script')</script>`,
  link: `[click me](javascript:window.__pwned='md';alert('md')) <a href="javascript:window.__pwned='a';alert('a')">link</a>`,
  toolName: `<svg onload="window.__pwned='svg';alert('svg')">`,
  event: `<iframe srcdoc="<script>parent.__pwned='iframe'</script>"></iframe>`,
};

export function hostileSession(): Message[] {
  const at = (s: number) => new Date(Date.UTC(2026, 10, 2, 10, 0, s)).toISOString();
  return [
    { role: "system", content: `You are careful. ${HOSTILE.script}`, metadata: { id: "h1", timestamp: at(0) } },
    { role: "user", content: `Look at this: ${HOSTILE.img}`, metadata: { id: "h2", timestamp: at(1) } },
    {
      role: "assistant",
      content: HOSTILE.script,
      tool_calls: [{ id: "call_1", type: "function", function: { name: HOSTILE.toolName, arguments: JSON.stringify({ q: HOSTILE.script }) } }],
      metadata: { id: "h3", timestamp: at(2) },
    },
    { role: "tool", tool_call_id: "call_1", content: HOSTILE.link, metadata: { id: "h4", timestamp: at(3) } },
    { role: "user", content: `and ${HOSTILE.link}`, metadata: { id: "h5", timestamp: at(4) } },
    { role: "assistant", content: `Done. ${HOSTILE.img}`, metadata: { id: "h6", timestamp: at(5) } },
  ];
}

/** Nothing hostile ran: no dialog, no global set by a payload, no image or frame made from data. */
export async function assertNothingRan(page: Page, watch: PageWatch): Promise<void> {
  // A string expression: this file is typed for Node (no DOM library); the page evaluates it.
  const state = (await page.evaluate(`({
    pwned: window.__pwned ?? null,
    images: document.querySelectorAll("img").length,
    frames: document.querySelectorAll("iframe").length,
    svgs: document.querySelectorAll("#app svg").length,
    javascriptLinks: document.querySelectorAll('a[href^="javascript:" i]').length,
  })`)) as { pwned: unknown; images: number; frames: number; svgs: number; javascriptLinks: number };
  if (watch.dialogs.length > 0 || state.pwned !== null || state.images + state.frames + state.svgs + state.javascriptLinks > 0) {
    throw new Error(`hostile content ran: ${JSON.stringify({ dialogs: watch.dialogs, ...state })}`);
  }
}
