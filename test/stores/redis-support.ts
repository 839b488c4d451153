import { randomBytes } from "node:crypto";
import { createClient } from "redis";
import { bundleStoreFixture } from "./support.js";

/** The server the tests use; AMPLIFIER_REDIS_URL overrides it. */
export const REDIS_URL = process.env.AMPLIFIER_REDIS_URL ?? "redis://127.0.0.1:6379";

/** A fresh key prefix for one test: `amp_test_<random>:`. */
export function testKeyPrefix(): string {
  return `amp_test_${randomBytes(6).toString("hex")}:`;
}

/** Deletes every key under the prefixes, with a short-lived client of its own. */
export async function dropPrefixes(...prefixes: string[]): Promise<void> {
  if (prefixes.length === 0) return;
  const client = createClient({ url: REDIS_URL });
  await client.connect();
  try {
    for (const prefix of prefixes) {
      for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) {
        if (keys.length) await client.del(keys);
      }
    }
  } finally {
    await client.close();
  }
}

/** Keys under a prefix (to look under the store). */
export async function keysUnder(prefix: string): Promise<string[]> {
  const client = createClient({ url: REDIS_URL });
  await client.connect();
  try {
    const out: string[] = [];
    for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) out.push(...keys);
    return out.sort();
  } finally {
    await client.close();
  }
}

/** Bundles test/stores/fixtures/redis-writer.ts for child processes; returns the .mjs path. */
export function bundleRedisWriter(): Promise<string> {
  return bundleStoreFixture("redis-writer");
}

/** A private redis-server on a free port (nothing on disk), for tests that stop and restart a server. */
export async function startPrivateRedis(options: { dir?: string; appendOnly?: boolean } = {}): Promise<{ port: number; url: string; stop(): Promise<void>; start(): Promise<void> }> {
  const { spawn } = await import("node:child_process");
  const { createServer } = await import("node:net");
  const port = await new Promise<number>((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
  let child: import("node:child_process").ChildProcess | undefined;
  const url = `redis://127.0.0.1:${port}`;
  const start = async () => {
    const persistence = options.appendOnly && options.dir ? ["--appendonly", "yes", "--appendfsync", "always", "--dir", options.dir] : ["--appendonly", "no"];
    child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", ...persistence], { stdio: "ignore" });
    const deadline = Date.now() + 10_000;
    for (;;) {
      const client = createClient({ url, socket: { reconnectStrategy: false, connectTimeout: 500 } });
      client.on("error", () => undefined);
      try {
        await client.connect();
        await client.close();
        return;
      } catch {
        if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not start within 10 s`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  };
  const stop = async () => {
    const c = child;
    child = undefined;
    if (!c || c.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      c.once("exit", () => resolve());
      c.kill("SIGKILL");
    });
  };
  await start();
  return { port, url, stop, start };
}
