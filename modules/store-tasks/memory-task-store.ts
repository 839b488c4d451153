import { randomUUID } from "node:crypto";
import type { NewTask, NewTaskList, Task, TaskList, TaskStatus, TaskStore } from "@amplifier-ts/contracts";
import { checkNewTaskList, checkNewTasks, checkOwnerId, checkStatus, checkTaskId, createError, taskListNotFound, taskNotFound } from "@amplifier-ts/contracts";

const MODULE = "store-tasks/memory";

interface StoredList {
  id: string;
  conversationId: string;
  agentId: string;
  tasks: Task[];
}

/**
 * Task boards in this process: one per agent, keyed by (conversationId, agentId).
 * Every change to a list runs under that list's lock (a promise chain per list id), one at a time in call order, so a read-modify-write such as incrementRetry is
 * never interleaved with another on the same list — also when a caller's own code (or a future
 * change here) awaits between the read and the write. Different lists do not wait for each other.
 * Values are copied out: a caller editing what it got changes nothing stored.
 */
export class MemoryTaskStore implements TaskStore {
  readonly kind = "memory";
  readonly #lists = new Map<string, StoredList>();
  /** "<conversationId>\0<agentId>" → list id. */
  readonly #byOwner = new Map<string, string>();
  readonly #locks = new Map<string, Promise<unknown>>();
  #closed = false;

  async connect(): Promise<void> {
    this.#open();
  }

  async disconnect(): Promise<void> {
    this.#closed = true;
  }

  async createTaskList(list: NewTaskList): Promise<TaskList> {
    this.#open();
    const checked = checkNewTaskList(MODULE, list);
    const owner = ownerKey(checked.conversationId, checked.agentId);
    return this.#locked(`owner:${owner}`, async () => {
      const previous = this.#byOwner.get(owner);
      if (previous !== undefined) await this.#locked(`list:${previous}`, async () => void this.#lists.delete(previous));
      const stored: StoredList = { id: randomUUID(), conversationId: checked.conversationId, agentId: checked.agentId, tasks: checked.tasks.map(newTask) };
      this.#lists.set(stored.id, stored);
      this.#byOwner.set(owner, stored.id);
      return copyList(stored);
    });
  }

  async getTaskList(conversationId: string, agentId: string): Promise<TaskList | undefined> {
    this.#open();
    const id = this.#byOwner.get(ownerKey(checkOwnerId(MODULE, "conversationId", conversationId), checkOwnerId(MODULE, "agentId", agentId)));
    const stored = id === undefined ? undefined : this.#lists.get(id);
    return stored === undefined ? undefined : copyList(stored);
  }

  async addTasks(listId: string, tasks: readonly NewTask[]): Promise<Task[]> {
    this.#open();
    checkTaskId(MODULE, "listId", listId);
    const checked = checkNewTasks(MODULE, tasks);
    return this.#withList(listId, (list) => {
      const added = checked.map(newTask);
      list.tasks.push(...added);
      return added.map((t) => ({ ...t }));
    });
  }

  async updateStatus(listId: string, taskId: string, status: TaskStatus): Promise<Task> {
    this.#open();
    checkTaskId(MODULE, "listId", listId);
    checkTaskId(MODULE, "taskId", taskId);
    const checked = checkStatus(MODULE, status);
    return this.#withTask(listId, taskId, (task) => {
      task.status = checked;
      return { ...task };
    });
  }

  /** The first pending task, under the list's lock: claims on one list run one at a time, so no two get one task. */
  async claimNextTask(listId: string): Promise<Task | undefined> {
    this.#open();
    checkTaskId(MODULE, "listId", listId);
    return this.#withList(listId, (list) => {
      const task = list.tasks.find((t) => t.status === "pending");
      if (task === undefined) return undefined;
      task.status = "in_progress";
      return { ...task };
    });
  }

  async compareAndSetStatus(listId: string, taskId: string, expected: TaskStatus, next: TaskStatus): Promise<Task | undefined> {
    this.#open();
    checkTaskId(MODULE, "listId", listId);
    checkTaskId(MODULE, "taskId", taskId);
    const from = checkStatus(MODULE, expected, "expected");
    const to = checkStatus(MODULE, next, "next");
    return this.#withTask(listId, taskId, (task) => {
      if (task.status !== from) return undefined;
      task.status = to;
      return { ...task };
    });
  }

  async incrementRetry(listId: string, taskId: string): Promise<boolean> {
    this.#open();
    checkTaskId(MODULE, "listId", listId);
    checkTaskId(MODULE, "taskId", taskId);
    return this.#withTask(listId, taskId, (task) => {
      if (task.retries >= task.maxRetries) return false;
      task.retries += 1;
      return true;
    });
  }

  async forceRetry(listId: string, taskId: string): Promise<Task> {
    this.#open();
    checkTaskId(MODULE, "listId", listId);
    checkTaskId(MODULE, "taskId", taskId);
    return this.#withTask(listId, taskId, (task) => {
      task.status = "pending";
      task.retries = 0;
      return { ...task };
    });
  }

  async settleConversation(conversationId: string): Promise<number> {
    this.#open();
    checkOwnerId(MODULE, "conversationId", conversationId);
    let settled = 0;
    const ids = [...this.#lists.values()].filter((l) => l.conversationId === conversationId).map((l) => l.id);
    for (const id of ids) {
      settled += await this.#locked(`list:${id}`, async () => {
        let n = 0;
        for (const task of this.#lists.get(id)?.tasks ?? []) {
          if (task.status !== "in_progress") continue;
          task.status = "succeeded";
          n++;
        }
        return n;
      });
    }
    return settled;
  }

  #withList<T>(listId: string, change: (list: StoredList) => T): Promise<T> {
    return this.#locked(`list:${listId}`, async () => {
      const list = this.#lists.get(listId);
      if (list === undefined) throw taskListNotFound(MODULE, listId);
      return change(list);
    });
  }

  #withTask<T>(listId: string, taskId: string, change: (task: Task) => T): Promise<T> {
    return this.#withList(listId, (list) => {
      const task = list.tasks.find((t) => t.id === taskId);
      if (task === undefined) throw taskNotFound(MODULE, listId, taskId);
      return change(task);
    });
  }

  /** Runs `fn` after every earlier call on `key` settled; the chain entry is dropped when it is the last. */
  #locked<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const before = this.#locks.get(key) ?? Promise.resolve();
    const run = before.then(fn, fn);
    const tail = run.catch(() => undefined);
    this.#locks.set(key, tail);
    void tail.then(() => {
      if (this.#locks.get(key) === tail) this.#locks.delete(key);
    });
    return run;
  }

  #open(): void {
    if (this.#closed) throw createError("STORE_CLOSED", "the task store has been disconnected", { module: MODULE });
  }
}

function ownerKey(conversationId: string, agentId: string): string {
  return `${conversationId}\0${agentId}`;
}

function newTask({ title, maxRetries }: { title: string; maxRetries: number }): Task {
  return { id: randomUUID(), title, status: "pending", retries: 0, maxRetries };
}

function copyList(list: StoredList): TaskList {
  return { id: list.id, conversationId: list.conversationId, agentId: list.agentId, tasks: list.tasks.map((t) => ({ ...t })) };
}
