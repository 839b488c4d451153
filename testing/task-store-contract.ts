/**
 * The conformance suite of the TaskStore contract (contracts/TASKS.md). Every task store runs it:
 *
 * ```ts
 * describeTaskStoreContract("memory", async () => ({ store: new MemoryTaskStore() }));
 * ```
 *
 * The factory returns a store over EMPTY storage. `peer`, when the store is shared, opens another
 * store over the same storage (its own connection pool): the concurrency cases then spread their
 * callers over the store and several peers, as processes would. `cleanup` removes the storage
 * after the suite disconnected every store. A shared store also passes `spawnClaimer` (options):
 * the suite then runs claimers in several real processes against one list.
 */
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_MAX_RETRIES, type TaskStore } from "@amplifier-ts/contracts";
import { expectClosed, expectInvalid, expectStoreError } from "./store-contract-helpers.js";

export interface TaskStoreUnderTest {
  store: TaskStore;
  peer?: () => TaskStore;
  cleanup?: () => Promise<void>;
  /** Where the store keeps its data (a schema, a URL…), for spawnClaimer's processes. */
  storage?: unknown;
}

export type TaskStoreFactory = () => Promise<TaskStoreUnderTest>;

/** A claimer process, connected and waiting: `start()` lets it claim and resolves with the task ids it got. */
export interface ClaimerProcess {
  start(): Promise<string[]>;
}

export interface TaskStoreContractOptions {
  /**
   * For stores several processes share: start a process that opens a store over `under`'s storage
   * and resolve once it is connected; when started, it calls claimNextTask(listId) until that
   * answers undefined and reports the ids it claimed, in order.
   */
  spawnClaimer?(under: TaskStoreUnderTest, job: { listId: string }): Promise<ClaimerProcess>;
  /** Claimer processes (default 4). */
  processes?: number;
}

export function describeTaskStoreContract(name: string, factory: TaskStoreFactory, options: TaskStoreContractOptions = {}): void {
  describe(`TaskStore contract: ${name}`, () => {
    let open: Array<{ made: TaskStoreUnderTest; peers: TaskStore[] }> = [];
    const make = async () => {
      const made = await factory();
      const entry = { made, peers: [] as TaskStore[] };
      open.push(entry);
      /** The store and `n - 1` peers (or the store again when it has none). */
      const stores = (n: number): TaskStore[] =>
        Array.from({ length: n }, (_, i) => {
          if (i === 0 || made.peer === undefined) return made.store;
          const peer = made.peer();
          entry.peers.push(peer);
          return peer;
        });
      return { store: made.store, stores, made };
    };
    afterEach(async () => {
      for (const { made, peers } of open) {
        for (const store of [made.store, ...peers]) await store.disconnect();
        await made.cleanup?.();
      }
      open = [];
    });

    it("createTaskList gives the list an id and each task an id, pending, 0 retries, maxRetries default 3; getTaskList reads it back", async () => {
      const { store } = await make();
      await store.connect();
      const list = await store.createTaskList({ conversationId: "c1", agentId: "planner", tasks: [{ title: "research" }, { title: "write", maxRetries: 1 }] });
      expect(list.id).toEqual(expect.any(String));
      expect(list).toMatchObject({ conversationId: "c1", agentId: "planner" });
      expect(list.tasks).toEqual([
        { id: expect.any(String), title: "research", status: "pending", retries: 0, maxRetries: DEFAULT_MAX_RETRIES },
        { id: expect.any(String), title: "write", status: "pending", retries: 0, maxRetries: 1 },
      ]);
      expect(new Set(list.tasks.map((t) => t.id)).size).toBe(2);
      expect(await store.getTaskList("c1", "planner")).toEqual(list);
      expect(await store.getTaskList("c1", "writer")).toBeUndefined();
      expect(await store.getTaskList("c2", "planner")).toBeUndefined();
    });

    it("boards are per (conversation, agent): two agents of one conversation never see each other's tasks", async () => {
      const { store } = await make();
      const a = await store.createTaskList({ conversationId: "c", agentId: "a", tasks: [{ title: "a's" }] });
      const b = await store.createTaskList({ conversationId: "c", agentId: "b", tasks: [{ title: "b's" }] });
      const other = await store.createTaskList({ conversationId: "d", agentId: "a", tasks: [{ title: "a's in d" }] });
      expect(new Set([a.id, b.id, other.id]).size).toBe(3);
      expect((await store.getTaskList("c", "a"))!.tasks.map((t) => t.title)).toEqual(["a's"]);
      expect((await store.getTaskList("c", "b"))!.tasks.map((t) => t.title)).toEqual(["b's"]);
      expect((await store.getTaskList("d", "a"))!.tasks.map((t) => t.title)).toEqual(["a's in d"]);
    });

    it("a new list for the same pair replaces the old one (its id is TASK_LIST_NOT_FOUND afterwards)", async () => {
      const { store } = await make();
      const old = await store.createTaskList({ conversationId: "c", agentId: "a", tasks: [{ title: "old plan" }] });
      const fresh = await store.createTaskList({ conversationId: "c", agentId: "a", tasks: [] });
      expect(fresh.id).not.toBe(old.id);
      expect(await store.getTaskList("c", "a")).toEqual({ id: fresh.id, conversationId: "c", agentId: "a", tasks: [] });
      await expectStoreError(store.addTasks(old.id, [{ title: "x" }]), "TASK_LIST_NOT_FOUND");
      await expectStoreError(store.updateStatus(old.id, old.tasks[0]!.id, "failed"), "TASK_LIST_NOT_FOUND");
    });

    it("addTasks appends pending tasks in order and returns them", async () => {
      const { store } = await make();
      const list = await store.createTaskList({ conversationId: "c", agentId: "a", tasks: [{ title: "one" }] });
      const added = await store.addTasks(list.id, [{ title: "two" }, { title: "three", maxRetries: 0 }]);
      expect(added.map((t) => [t.title, t.status, t.retries, t.maxRetries])).toEqual([["two", "pending", 0, 3], ["three", "pending", 0, 0]]);
      expect((await store.getTaskList("c", "a"))!.tasks.map((t) => t.title)).toEqual(["one", "two", "three"]);
      expect(await store.addTasks(list.id, [])).toEqual([]);
      await expectStoreError(store.addTasks("no-such-list", [{ title: "x" }]), "TASK_LIST_NOT_FOUND");
    });

    it("updateStatus moves a task through every status and returns it; unknown ids are typed errors", async () => {
      const { store } = await make();
      const list = await store.createTaskList({ conversationId: "c", agentId: "a", tasks: [{ title: "t" }, { title: "u" }] });
      const [t, u] = list.tasks;
      for (const status of ["in_progress", "failed", "succeeded", "pending"] as const) {
        expect(await store.updateStatus(list.id, t!.id, status)).toEqual({ ...t, status });
        expect((await store.getTaskList("c", "a"))!.tasks.map((x) => x.status)).toEqual([status, "pending"]);
      }
      expect(u).toBeDefined();
      await expectStoreError(store.updateStatus(list.id, "no-such-task", "failed"), "TASK_NOT_FOUND");
      await expectStoreError(store.updateStatus("no-such-list", t!.id, "failed"), "TASK_LIST_NOT_FOUND");
      await expectInvalid(store.updateStatus(list.id, t!.id, "done" as never), "status");
      await expectInvalid(store.updateStatus(list.id, t!.id, "SUCCEEDED" as never), "status");
    });

    it("incrementRetry grants maxRetries retries, then false without changing anything", async () => {
      const { store } = await make();
      const list = await store.createTaskList({ conversationId: "c", agentId: "a", tasks: [{ title: "flaky", maxRetries: 2 }, { title: "never", maxRetries: 0 }] });
      const [flaky, never] = list.tasks;
      await store.updateStatus(list.id, flaky!.id, "in_progress");
      expect(await store.incrementRetry(list.id, flaky!.id)).toBe(true);
      expect(await store.incrementRetry(list.id, flaky!.id)).toBe(true);
      expect(await store.incrementRetry(list.id, flaky!.id)).toBe(false);
      expect(await store.incrementRetry(list.id, never!.id)).toBe(false);
      const tasks = (await store.getTaskList("c", "a"))!.tasks;
      expect(tasks.map((t) => [t.retries, t.status])).toEqual([[2, "in_progress"], [0, "pending"]]);
      await expectStoreError(store.incrementRetry(list.id, "no-such-task"), "TASK_NOT_FOUND");
    });

    it("forceRetry (the human override) resets any task to pending with 0 retries, so incrementRetry grants again", async () => {
      const { store } = await make();
      const list = await store.createTaskList({ conversationId: "c", agentId: "a", tasks: [{ title: "t", maxRetries: 1 }] });
      const id = list.tasks[0]!.id;
      expect(await store.incrementRetry(list.id, id)).toBe(true);
      expect(await store.incrementRetry(list.id, id)).toBe(false);
      await store.updateStatus(list.id, id, "failed");
      expect(await store.forceRetry(list.id, id)).toEqual({ id, title: "t", status: "pending", retries: 0, maxRetries: 1 });
      expect(await store.incrementRetry(list.id, id)).toBe(true);
      await expectStoreError(store.forceRetry("no-such-list", id), "TASK_LIST_NOT_FOUND");
    });

    it("settleConversation turns the conversation's in_progress tasks (every agent's) into succeeded, and nothing else", async () => {
      const { store } = await make();
      const a = await store.createTaskList({ conversationId: "c", agentId: "a", tasks: [{ title: "1" }, { title: "2" }, { title: "3" }, { title: "4" }] });
      const b = await store.createTaskList({ conversationId: "c", agentId: "b", tasks: [{ title: "5" }] });
      const other = await store.createTaskList({ conversationId: "d", agentId: "a", tasks: [{ title: "6" }] });
      const statuses = ["in_progress", "pending", "failed", "in_progress"] as const;
      for (const [i, status] of statuses.entries()) await store.updateStatus(a.id, a.tasks[i]!.id, status);
      await store.updateStatus(b.id, b.tasks[0]!.id, "in_progress");
      await store.updateStatus(other.id, other.tasks[0]!.id, "in_progress");
      expect(await store.settleConversation("c")).toBe(3);
      expect((await store.getTaskList("c", "a"))!.tasks.map((t) => t.status)).toEqual(["succeeded", "pending", "failed", "succeeded"]);
      expect((await store.getTaskList("c", "b"))!.tasks.map((t) => t.status)).toEqual(["succeeded"]);
      expect((await store.getTaskList("d", "a"))!.tasks.map((t) => t.status)).toEqual(["in_progress"]);
      expect(await store.settleConversation("c")).toBe(0);
      expect(await store.settleConversation("nobody")).toBe(0);
    });

    it("claimNextTask takes pending tasks in list order, each becoming in_progress; undefined when none is pending", async () => {
      const { store } = await make();
      const list = await store.createTaskList({ conversationId: "c", agentId: "a", tasks: [{ title: "1" }, { title: "2" }, { title: "3" }, { title: "4" }] });
      const [one, two, three, four] = list.tasks;
      await store.updateStatus(list.id, one!.id, "succeeded");
      await store.updateStatus(list.id, three!.id, "failed");
      expect(await store.claimNextTask(list.id)).toEqual({ ...two, status: "in_progress" });
      expect(await store.claimNextTask(list.id)).toEqual({ ...four, status: "in_progress" });
      expect(await store.claimNextTask(list.id)).toBeUndefined();
      expect((await store.getTaskList("c", "a"))!.tasks.map((t) => t.status)).toEqual(["succeeded", "in_progress", "failed", "in_progress"]);
      // A task put back (the human override) can be claimed again.
      await store.forceRetry(list.id, three!.id);
      expect((await store.claimNextTask(list.id))?.id).toBe(three!.id);
      const empty = await store.createTaskList({ conversationId: "c", agentId: "b", tasks: [] });
      expect(await store.claimNextTask(empty.id)).toBeUndefined();
      await expectStoreError(store.claimNextTask("no-such-list"), "TASK_LIST_NOT_FOUND");
      await expectInvalid(store.claimNextTask(""), "listId");
    });

    it("compareAndSetStatus changes the status only from the expected one: the changed task, or undefined and nothing changed", async () => {
      const { store } = await make();
      const list = await store.createTaskList({ conversationId: "c", agentId: "a", tasks: [{ title: "t", maxRetries: 2 }] });
      const task = list.tasks[0]!;
      expect(await store.compareAndSetStatus(list.id, task.id, "pending", "in_progress")).toEqual({ ...task, status: "in_progress" });
      expect(await store.compareAndSetStatus(list.id, task.id, "pending", "in_progress")).toBeUndefined();
      // A worker finishes only what is still its own: after a human reset, its "succeeded" is refused.
      await store.forceRetry(list.id, task.id);
      expect(await store.compareAndSetStatus(list.id, task.id, "in_progress", "succeeded")).toBeUndefined();
      expect((await store.getTaskList("c", "a"))!.tasks[0]).toEqual({ ...task, status: "pending" });
      await expectStoreError(store.compareAndSetStatus(list.id, "no-such-task", "pending", "failed"), "TASK_NOT_FOUND");
      await expectStoreError(store.compareAndSetStatus("no-such-list", task.id, "pending", "failed"), "TASK_LIST_NOT_FOUND");
      await expectInvalid(store.compareAndSetStatus(list.id, task.id, "todo" as never, "failed"), "expected");
      await expectInvalid(store.compareAndSetStatus(list.id, task.id, "pending", "done" as never), "next");
      expect((await store.getTaskList("c", "a"))!.tasks[0]!.status).toBe("pending");
    });

    it("60 concurrent claimNextTask calls (over several stores when shared) on 40 tasks: each task claimed exactly once, then undefined", async () => {
      const { stores } = await make();
      const pool = stores(4);
      const list = await pool[0]!.createTaskList({ conversationId: "c", agentId: "a", tasks: Array.from({ length: 40 }, (_, i) => ({ title: `job ${i}` })) });
      // Interleaved with retries on the same tasks (row locks held by another kind of change).
      const results = await Promise.all(
        Array.from({ length: 60 }, (_, i) => {
          const store = pool[i % pool.length]!;
          return i % 5 === 4 ? store.incrementRetry(list.id, list.tasks[i % 40]!.id).then(() => "retry" as const) : store.claimNextTask(list.id);
        }),
      );
      const claimed = results.filter((r): r is NonNullable<typeof r> & object => typeof r === "object" && r !== null).map((t) => t.id);
      expect(claimed).toHaveLength(40);
      expect(new Set(claimed).size).toBe(40);
      expect(results.filter((r) => r === undefined)).toHaveLength(8);
      expect((await pool[0]!.getTaskList("c", "a"))!.tasks.every((t) => t.status === "in_progress")).toBe(true);
      // Racing compare-and-sets on one task: exactly one wins.
      const fresh = (await pool[0]!.addTasks(list.id, [{ title: "contended" }]))[0]!;
      const swaps = await Promise.all(Array.from({ length: 30 }, (_, i) => pool[i % pool.length]!.compareAndSetStatus(list.id, fresh.id, "pending", "in_progress")));
      expect(swaps.filter((s) => s !== undefined)).toHaveLength(1);
    }, 60_000);

    if (options.spawnClaimer) {
      const spawnClaimer = options.spawnClaimer;
      const processes = options.processes ?? 4;
      it(`${processes} claimer processes and this one take tasks from one list: every task claimed exactly once`, async () => {
        const { store, made } = await make();
        const count = 300;
        const list = await store.createTaskList({ conversationId: "c", agentId: "a", tasks: Array.from({ length: count }, (_, i) => ({ title: `job ${i}` })) });
        // Every process is connected before any claims: the claims overlap from the first.
        const claimers = await Promise.all(Array.from({ length: processes }, () => spawnClaimer(made, { listId: list.id })));
        const mine = (async () => {
          const ids: string[] = [];
          for (let task = await store.claimNextTask(list.id); task !== undefined; task = await store.claimNextTask(list.id)) ids.push(task.id);
          return ids;
        })();
        const claimed = await Promise.all([...claimers.map((c) => c.start()), mine]);
        const all = claimed.flat();
        expect(all).toHaveLength(count);
        expect(new Set(all)).toEqual(new Set(list.tasks.map((t) => t.id)));
        // Each claimer got its tasks in list order (it always takes the first one pending).
        const position = new Map(list.tasks.map((t, i) => [t.id, i]));
        for (const ids of claimed) expect(ids.map((id) => position.get(id)!)).toEqual(ids.map((id) => position.get(id)!).sort((a, b) => a - b));
        expect((await store.getTaskList("c", "a"))!.tasks.every((t) => t.status === "in_progress")).toBe(true);
      }, 120_000);
    }

    it("50 concurrent incrementRetry calls (over several stores when shared) grant exactly maxRetries", async () => {
      const { stores } = await make();
      const pool = stores(4);
      const list = await pool[0]!.createTaskList({ conversationId: "c", agentId: "a", tasks: [{ title: "contended", maxRetries: 7 }, { title: "other", maxRetries: 50 }] });
      const [contended, other] = list.tasks;
      const results = await Promise.all(Array.from({ length: 50 }, (_, i) => pool[i % pool.length]!.incrementRetry(list.id, contended!.id)));
      expect(results.filter(Boolean)).toHaveLength(7);
      // Interleaved with status changes and retries of another task of the same list.
      const mixed = await Promise.all(
        Array.from({ length: 60 }, (_, i) => {
          const store = pool[i % pool.length]!;
          if (i % 3 === 0) return store.incrementRetry(list.id, other!.id);
          if (i % 3 === 1) return store.updateStatus(list.id, other!.id, i % 2 ? "in_progress" : "pending").then(() => "status");
          return store.incrementRetry(list.id, contended!.id);
        }),
      );
      expect(mixed.filter((r) => r === true)).toHaveLength(20);
      const tasks = (await pool[0]!.getTaskList("c", "a"))!.tasks;
      expect(tasks.map((t) => t.retries)).toEqual([7, 20]);
    }, 60_000);

    it("concurrent addTasks and createTaskList lose nothing and duplicate nothing", async () => {
      const { stores } = await make();
      const pool = stores(3);
      const list = await pool[0]!.createTaskList({ conversationId: "c", agentId: "a", tasks: [] });
      await Promise.all(Array.from({ length: 30 }, (_, i) => pool[i % pool.length]!.addTasks(list.id, [{ title: `t${i}a` }, { title: `t${i}b` }])));
      const titles = (await pool[1 % pool.length]!.getTaskList("c", "a"))!.tasks.map((t) => t.title);
      expect(titles).toHaveLength(60);
      expect(new Set(titles).size).toBe(60);
      // Each caller's pair stays adjacent and in order: an addTasks is one append.
      for (let i = 0; i < 30; i++) expect(titles.indexOf(`t${i}b`)).toBe(titles.indexOf(`t${i}a`) + 1);
      // Racing creates of one pair leave exactly one list, whole.
      const created = await Promise.all(Array.from({ length: 10 }, (_, i) => pool[i % pool.length]!.createTaskList({ conversationId: "race", agentId: "a", tasks: [{ title: `plan ${i}` }, { title: `plan ${i} step 2` }] })));
      const final = (await pool[0]!.getTaskList("race", "a"))!;
      const winner = created.find((c) => c.id === final.id);
      expect(winner).toBeDefined();
      expect(final).toEqual(winner);
    }, 60_000);

    it("bad arguments are INVALID_ARGUMENT naming the field", async () => {
      const { store } = await make();
      await expectInvalid(store.createTaskList({ conversationId: "", agentId: "a", tasks: [] }), "list.conversationId");
      await expectInvalid(store.createTaskList({ conversationId: "c", agentId: 7 as never, tasks: [] }), "list.agentId");
      await expectInvalid(store.createTaskList({ conversationId: "c", agentId: "a", tasks: "do it" as never }), "list.tasks");
      await expectInvalid(store.createTaskList({ conversationId: "c", agentId: "a", tasks: [{ title: "   " }] }), "list.tasks[0].title");
      for (const maxRetries of [-1, 1.5, 1001, "3"]) {
        await expectInvalid(store.createTaskList({ conversationId: "c", agentId: "a", tasks: [{ title: "ok" }, { title: "t", maxRetries: maxRetries as number }] }), "list.tasks[1].maxRetries");
      }
      expect(await store.getTaskList("c", "a")).toBeUndefined();
      const list = await store.createTaskList({ conversationId: "c", agentId: "a", tasks: [] });
      await expectInvalid(store.addTasks(list.id, [{ title: "" }]), "tasks[0].title");
      await expectInvalid(store.addTasks("", [{ title: "x" }]), "listId");
      await expectInvalid(store.getTaskList("c", ""), "agentId");
      await expectInvalid(store.settleConversation(""), "conversationId");
      expect((await store.getTaskList("c", "a"))!.tasks).toEqual([]);
    });

    it("values are copied: editing a returned list changes nothing stored", async () => {
      const { store } = await make();
      const list = await store.createTaskList({ conversationId: "c", agentId: "a", tasks: [{ title: "t" }] });
      list.tasks[0]!.status = "failed";
      list.tasks.push({ id: "x", title: "y", status: "pending", retries: 0, maxRetries: 0 });
      expect((await store.getTaskList("c", "a"))!.tasks).toEqual([{ id: list.tasks[0]!.id, title: "t", status: "pending", retries: 0, maxRetries: 3 }]);
    });

    it("after disconnect every operation is STORE_CLOSED", async () => {
      const { store } = await make();
      const list = await store.createTaskList({ conversationId: "c", agentId: "a", tasks: [{ title: "t" }] });
      await store.disconnect();
      await store.disconnect();
      await expectClosed(store.getTaskList("c", "a"));
      await expectClosed(store.incrementRetry(list.id, list.tasks[0]!.id));
      await expectClosed(store.settleConversation("c"));
      await expectClosed(store.connect());
    });
  });
}
