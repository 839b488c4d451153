import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { beforeAll } from "vitest";
import { describeTaskStoreContract, type ClaimerProcess, type TaskStoreUnderTest } from "../../testing/task-store-contract.js";
import { createTaskStore } from "../../src/stores.js";
import { dropSchemas, PG_URL, testSchemaName } from "../stores/postgres-support.js";

/**
 * The TaskStore contract on memory and PostgreSQL (127.0.0.1:5432 db test, a schema per case). The
 * PostgreSQL peers are separate stores, each with its own pool of 3 connections: the concurrency
 * cases run their 50 callers over 4 pools, as 4 processes would; the claim case also runs in 4
 * real processes (a bundle of fixtures/task-claimer.ts).
 */
let claimerScript = "";
beforeAll(async () => {
  claimerScript = fileURLToPath(new URL(`../../.cache/test-agent-stores/task-claimer-${process.pid}.mjs`, import.meta.url));
  await build({ entryPoints: [fileURLToPath(new URL("./fixtures/task-claimer.ts", import.meta.url))], outfile: claimerScript, bundle: true, packages: "external", platform: "node", format: "esm", target: "node20", logLevel: "silent" });
}, 60_000);

describeTaskStoreContract("memory", async () => ({ store: createTaskStore({ type: "memory" }) }));

describeTaskStoreContract(
  "postgres",
  async () => {
    const schema = testSchemaName();
    const open = () => createTaskStore({ type: "postgres", url: PG_URL, schema, poolSize: 3 });
    return { store: open(), peer: open, cleanup: () => dropSchemas(schema), storage: schema };
  },
  { spawnClaimer: startClaimer },
);

/** A claimer process on the case's schema, resolved once it printed "ready". */
async function startClaimer(under: TaskStoreUnderTest, job: { listId: string }): Promise<ClaimerProcess> {
  const child = spawn(process.execPath, [claimerScript, PG_URL, String(under.storage), job.listId], { stdio: ["pipe", "pipe", "inherit"] });
  let output = "";
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
      if (output.startsWith("ready\n")) resolve();
    });
    void exited.then((code) => reject(new Error(`claimer exited (${code}) before it was ready: ${output}`)));
  });
  await ready;
  return {
    async start() {
      child.stdin.end("go\n");
      const code = await exited;
      const lines = output.split("\n").slice(1, -1);
      if (code !== 0 || lines.at(-1) !== "done") throw new Error(`claimer failed (exit ${code}): ${output}`);
      return lines.slice(0, -1).map((line) => line.replace(/^claimed /, ""));
    },
  };
}
