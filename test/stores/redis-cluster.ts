/**
 * A private Redis Cluster on loopback for tests and benchmarks: `masters` primaries and one
 * replica each (redis-server --cluster-enabled yes, each in a temp folder of its own with an
 * append-only file), joined by `redis-cli --cluster create … --cluster-replicas 1`. Never the
 * machine's Redis on 6379: the ports are free ports picked here (a node also needs port + 10000
 * free for its cluster bus). `stop()` kills every process it started and removes the folders; a
 * start that fails half way cleans up what it started before rethrowing.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { rmSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "redis";

export interface ClusterNode {
  readonly port: number;
  readonly url: string;
  readonly dir: string;
  /** The live process, or undefined after kill(). */
  process: ChildProcess | undefined;
}

export interface RedisClusterHandle {
  readonly nodes: readonly ClusterNode[];
  /** `redis+cluster://127.0.0.1:<p1>,127.0.0.1:<p2>,…` (every node: the store discovers the rest). */
  readonly url: string;
  /** `redis://127.0.0.1:<port>` of every node. */
  readonly rootNodes: string[];
  /** The node serving `slot` as primary now (asks the cluster). */
  masterOfSlot(slot: number): Promise<ClusterNode>;
  /** Replica ports of the primary on `port` (asks the cluster). */
  replicasOf(port: number): Promise<number[]>;
  /** SIGKILL one node (no shutdown save). */
  kill(node: ClusterNode): Promise<void>;
  /** Starts a killed node again on its port, folder and nodes.conf (it rejoins, as a replica if it was failed over). */
  restart(node: ClusterNode): Promise<void>;
  /** Waits until every node reports cluster_state:ok and every slot is served. */
  waitHealthy(timeoutMs?: number): Promise<void>;
  /** Kills every process and removes the folders (idempotent). */
  stop(): Promise<void>;
}

/** Free loopback ports p with p + 10000 free as well (the cluster bus). */
async function freePorts(n: number): Promise<number[]> {
  const out: number[] = [];
  for (let tries = 0; out.length < n && tries < 200; tries++) {
    const port = 20_000 + Math.floor(Math.random() * 30_000);
    if (out.includes(port) || port === 6379) continue;
    if ((await portFree(port)) && (await portFree(port + 10_000))) out.push(port);
  }
  if (out.length < n) throw new Error(`could not find ${n} free port pairs for a Redis Cluster`);
  return out;
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
  });
}

function startNode(node: ClusterNode, nodeTimeoutMs: number): ChildProcess {
  const child = spawn(
    "redis-server",
    [
      "--port", String(node.port),
      "--bind", "127.0.0.1",
      "--cluster-enabled", "yes",
      "--cluster-config-file", join(node.dir, "nodes.conf"),
      "--cluster-node-timeout", String(nodeTimeoutMs),
      "--dir", node.dir,
      "--save", "",
      "--appendonly", "yes",
      "--appendfsync", "everysec",
      "--daemonize", "no",
      "--logfile", join(node.dir, "redis.log"),
    ],
    { stdio: "ignore" },
  );
  child.on("error", () => undefined);
  return child;
}

async function ping(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const client = createClient({ url, socket: { reconnectStrategy: false, connectTimeout: 500 } });
    client.on("error", () => undefined);
    try {
      await client.connect();
      await client.close();
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`redis-server at ${url} did not answer within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/** One command on one node with a short-lived client. */
export async function nodeCommand(url: string, args: string[]): Promise<unknown> {
  const client = createClient({ url, socket: { reconnectStrategy: false, connectTimeout: 1_000 } });
  client.on("error", () => undefined);
  await client.connect();
  try {
    return await client.sendCommand(args);
  } finally {
    await client.close().catch(() => client.destroy());
  }
}

function runCli(args: string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn("redis-cli", args, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", reject);
    child.on("exit", (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`redis-cli ${args.join(" ")} exited ${code}: ${out}`));
    });
  });
}

export async function startRedisCluster(options: { masters?: number; nodeTimeoutMs?: number } = {}): Promise<RedisClusterHandle> {
  const masters = options.masters ?? 3;
  const nodeTimeoutMs = options.nodeTimeoutMs ?? 1_000;
  const ports = await freePorts(masters * 2);
  const nodes: ClusterNode[] = [];
  let stopped = false;

  const kill = async (node: ClusterNode) => {
    const child = node.process;
    node.process = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once("exit", () => resolve());
      child.kill("SIGKILL");
    });
  };
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await Promise.all(nodes.map((n) => kill(n)));
    await Promise.all(nodes.map((n) => rm(n.dir, { recursive: true, force: true })));
  };
  const info = async (url: string): Promise<string> => String(await nodeCommand(url, ["CLUSTER", "INFO"]));
  const waitHealthy = async (timeoutMs = 30_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      let ok = true;
      for (const node of nodes.filter((n) => n.process)) {
        try {
          const text = await info(node.url);
          if (!/cluster_state:ok/.test(text) || !/cluster_slots_ok:16384/.test(text)) ok = false;
        } catch {
          ok = false;
        }
      }
      if (ok) return;
      if (Date.now() > deadline) throw new Error(`the Redis Cluster did not reach cluster_state:ok within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const shards = async (): Promise<{ master: number; replicas: number[]; slots: [number, number][] }[]> => {
    const live = nodes.find((n) => n.process);
    if (!live) throw new Error("no live cluster node");
    const reply = (await nodeCommand(live.url, ["CLUSTER", "SLOTS"])) as [number, number, [string, number, string], ...[string, number, string][]][];
    const byMaster = new Map<number, { master: number; replicas: number[]; slots: [number, number][] }>();
    for (const [from, to, master, ...replicas] of reply) {
      const entry = byMaster.get(master[1]) ?? { master: master[1], replicas: replicas.map((r) => r[1]), slots: [] };
      entry.slots.push([from, to]);
      byMaster.set(master[1], entry);
    }
    return [...byMaster.values()];
  };

  // Even when the test runner dies without running afterAll: no redis-server outlives this process.
  const onExit = () => {
    for (const n of nodes) {
      n.process?.kill("SIGKILL");
      rmSync(n.dir, { recursive: true, force: true });
    }
  };
  process.once("exit", onExit);
  const stopAll = stop;
  const stopAndForget = async () => {
    process.removeListener("exit", onExit);
    await stopAll();
  };

  try {
    for (const port of ports) {
      const dir = await mkdtemp(join(tmpdir(), `amp-redis-cluster-${port}-`));
      nodes.push({ port, url: `redis://127.0.0.1:${port}`, dir, process: undefined });
    }
    for (const node of nodes) node.process = startNode(node, nodeTimeoutMs);
    await Promise.all(nodes.map((n) => ping(n.url, 10_000)));
    await runCli(["--cluster", "create", ...nodes.map((n) => `127.0.0.1:${n.port}`), "--cluster-replicas", "1", "--cluster-yes"], 60_000);
    await waitHealthy();
    // Every replica attached and synced before the handle is used.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const layout = await shards();
      if (layout.length === masters && layout.every((s) => s.replicas.length === 1)) break;
      if (Date.now() > deadline) throw new Error("the cluster's replicas did not attach within 30 s");
      await new Promise((r) => setTimeout(r, 100));
    }
  } catch (error) {
    await stopAndForget();
    throw error;
  }

  return {
    nodes,
    url: `redis+cluster://${nodes.map((n) => `127.0.0.1:${n.port}`).join(",")}`,
    rootNodes: nodes.map((n) => n.url),
    async masterOfSlot(slot) {
      const shard = (await shards()).find((s) => s.slots.some(([from, to]) => slot >= from && slot <= to));
      const node = nodes.find((n) => n.port === shard?.master);
      if (!node) throw new Error(`no primary serves slot ${slot}`);
      return node;
    },
    async replicasOf(port) {
      return (await shards()).find((s) => s.master === port)?.replicas ?? [];
    },
    kill,
    async restart(node) {
      if (node.process) return;
      node.process = startNode(node, nodeTimeoutMs);
      await ping(node.url, 10_000);
    },
    waitHealthy,
    stop: stopAndForget,
  };
}

/** Deletes every key under `prefix` on every primary of the cluster (SCAN per primary, DEL key by key: keys of many slots). */
export async function dropClusterPrefix(cluster: RedisClusterHandle, prefix: string): Promise<void> {
  for (const node of cluster.nodes) {
    if (!node.process) continue;
    const role = (await nodeCommand(node.url, ["ROLE"])) as [string, ...unknown[]];
    if (role[0] !== "master") continue;
    const client = createClient({ url: node.url, socket: { reconnectStrategy: false } });
    client.on("error", () => undefined);
    await client.connect();
    try {
      for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) {
        for (const key of keys) await client.del(key);
      }
    } finally {
      await client.close().catch(() => client.destroy());
    }
  }
}

/** The hash slot of a key (asks a node: CLUSTER KEYSLOT). */
export async function keySlot(cluster: RedisClusterHandle, key: string): Promise<number> {
  const node = cluster.nodes.find((n) => n.process);
  if (!node) throw new Error("no live cluster node");
  return Number(await nodeCommand(node.url, ["CLUSTER", "KEYSLOT", key]));
}
