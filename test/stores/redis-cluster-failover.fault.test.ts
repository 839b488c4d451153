/**
 * A Redis Cluster losing a primary in the middle of appends (issue 20): a fault test (it kills
 * processes; runs alone in vitest.faults.config.ts). A private cluster of three primaries and
 * three replicas (test/stores/redis-cluster.ts, free loopback ports, never the machine's Redis).
 *
 * Six writers append numbered messages without pause, one session each, spread over the three
 * primaries. After 40 acknowledgements each, the replica of the primary serving the first
 * session's slot is stalled (SIGSTOP), 8 MB written straight to that primary fill the socket to
 * the replica, the writers go on for 300 ms, then the primary is killed with SIGKILL and the
 * replica resumed (SIGCONT); it is promoted (cluster-node-timeout 1 s), the killed node is
 * started again on its files and rejoins as a replica. The store runs with
 * `waitForReplicas: { replicas: 1 }` — an append resolves only once a replica holds it — so the
 * replica that is promoted holds every acknowledged append: every session reads back exactly the
 * acknowledged messages, in order, none twice, and no append rejects. Without waitForReplicas the
 * same test fails: a run read back 99 of 177 acknowledged appends of the first session (the
 * primary had acknowledged the rest alone). On loopback, a replica that is not stalled receives
 * the stream in the same event-loop turn as the reply, so only the stall makes the loss visible.
 */
import { describe, expect, it } from "vitest";
import { RedisStore } from "../../src/modules/stores.js";
import { appendStream } from "./append-stream.js";
import { keySlot, nodeCommand, startRedisCluster } from "./redis-cluster.js";

describe("RedisStore on a Redis Cluster whose primary is killed", () => {
  it("kill -9 of a primary during appends: the replica takes over, every acknowledged append is kept once, in order", async () => {
    const cluster = await startRedisCluster({ nodeTimeoutMs: 1_000 });
    const keyPrefix = "failover:";
    const store = new RedisStore({
      url: cluster.url,
      keyPrefix,
      waitForReplicas: { replicas: 1, timeoutMs: 500 },
      // Patient enough to ride out the failover on a loaded machine: 80 tries, and an append whose
      // reply was lost is retried for up to 60 s (the default 10 s ran out once under load 13).
      retry: { attempts: 80, baseDelayMs: 25, maxDelayMs: 400, outcomeWindowMs: 60_000 },
    });
    try {
      const sessions = Array.from({ length: 6 }, (_, i) => `s${i}`);
      // The sessions cover every primary (else the test would not show the spread).
      const owners = new Set<number>();
      for (const id of sessions) owners.add((await cluster.masterOfSlot(await keySlot(cluster, `${keyPrefix}{default:${id}}:s`))).port);
      expect(owners.size).toBeGreaterThanOrEqual(2);

      const streams = sessions.map((id) => appendStream(store, id));
      await Promise.all(streams.map((s) => s.until(40)));
      const victim = await cluster.masterOfSlot(await keySlot(cluster, `${keyPrefix}{default:s0}:s`));
      const [replicaPort] = await cluster.replicasOf(victim.port);
      const replica = cluster.nodes.find((n) => n.port === replicaPort)!;
      // The worst moment: the replica stalls (SIGSTOP), 8 MB written straight to the primary fill
      // the socket to it, so what the primary takes next stays in its own memory — then the
      // primary dies and the replica wakes. Writes the primary acknowledged alone die with it.
      replica.process!.kill("SIGSTOP");
      await nodeCommand(victim.url, ["SET", `${keyPrefix}{default:s0}:filler`, "x".repeat(8 * 1024 * 1024)]);
      await new Promise((r) => setTimeout(r, 300));
      await cluster.kill(victim);
      replica.process!.kill("SIGCONT");
      // The replica is promoted once the others mark the primary failed.
      const deadline = Date.now() + 30_000;
      while ((await cluster.masterOfSlot(await keySlot(cluster, `${keyPrefix}{default:s0}:s`))).port !== replicaPort) {
        if (Date.now() > deadline) throw new Error("no failover within 30 s");
        await new Promise((r) => setTimeout(r, 100));
      }
      await cluster.restart(victim);
      await cluster.waitHealthy();
      const afterFailover = streams.map((s) => s.acked.length);
      await Promise.all(streams.map((s, i) => s.until(afterFailover[i]! + 40)));
      await Promise.all(streams.map((s) => s.stop()));

      for (const s of streams) expect(s.failures).toEqual([]);
      const reader = new RedisStore({ cluster: { rootNodes: cluster.rootNodes }, keyPrefix });
      try {
        for (const [i, id] of sessions.entries()) {
          const seqs = (await reader.read(id)).map((m) => m.metadata?.seq);
          expect(seqs).toEqual(Array.from({ length: streams[i]!.acked.length }, (_, k) => k));
        }
        expect((await reader.listSessions()).map((s) => s.sessionId)).toEqual(sessions);
      } finally {
        await reader.close();
      }
      // The session whose primary died still takes writes on its new primary.
      await store.append("s0", { role: "user", content: "after", metadata: { id: "after" } });
      expect((await store.read("s0", { offset: streams[0]!.acked.length })).map((m) => m.content)).toEqual(["after"]);
    } finally {
      await store.close();
      await cluster.stop();
    }
  });
});
