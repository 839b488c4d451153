import { createError } from "../errors.js";
import { storeErrors } from "./store-errors.js";

/**
 * The TaskStore contract (contracts/TASKS.md): per-agent Kanban boards — one task list per
 * (conversationId, agentId) — with a bounded retry per task and an atomic claim (version 2: claimNextTask,
 * compareAndSetStatus). Implementations: memory (updates
 * serialised per list) in @amplifier-ts/module-store-tasks, postgres (row locks, SELECT … FOR UPDATE) in
 * @amplifier-ts/agent-stores-postgres. Conformance suite: `describeTaskStoreContract` in
 * @amplifier-ts/testing.
 */
export const TASK_STATUSES = ["pending", "in_progress", "succeeded", "failed"] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export interface Task {
  id: string;
  title: string;
  status: TaskStatus;
  /** Retries taken (incrementRetry); 0 on a new task and after forceRetry. */
  retries: number;
  maxRetries: number;
}

export interface TaskList {
  id: string;
  conversationId: string;
  agentId: string;
  /** In the order they were added. */
  tasks: Task[];
}

export interface NewTask {
  title: string;
  /** Retries incrementRetry grants, 0-1000. Default DEFAULT_MAX_RETRIES. */
  maxRetries?: number;
}

export interface NewTaskList {
  conversationId: string;
  agentId: string;
  tasks: readonly NewTask[];
}

export interface TaskStore {
  readonly kind: string;
  connect(): Promise<void>;
  /** Final: every operation afterwards is STORE_CLOSED. Idempotent. */
  disconnect(): Promise<void>;
  /** A new list for the pair, its tasks pending; it replaces the pair's previous list (the agent's new plan). */
  createTaskList(list: NewTaskList): Promise<TaskList>;
  /** The pair's list, or undefined. */
  getTaskList(conversationId: string, agentId: string): Promise<TaskList | undefined>;
  /** Appends pending tasks; returns them. STORE/TASK_LIST_NOT_FOUND for an unknown list. */
  addTasks(listId: string, tasks: readonly NewTask[]): Promise<Task[]>;
  /**
   * Sets the status unconditionally; returns the task. STORE/TASK_LIST_NOT_FOUND, STORE/TASK_NOT_FOUND.
   * Not a way to take work: two workers that both read `pending` both "claim" it — use claimNextTask
   * or compareAndSetStatus for that.
   */
  updateStatus(listId: string, taskId: string, status: TaskStatus): Promise<Task>;
  /**
   * Takes work (version 2): atomically moves the list's first pending task (in list order) to
   * in_progress and returns it; undefined when no task is pending. However many callers race — in
   * any number of processes — each pending task is handed to exactly one of them, and undefined
   * means no task was pending. STORE/TASK_LIST_NOT_FOUND.
   */
  claimNextTask(listId: string): Promise<Task | undefined>;
  /**
   * Compare-and-set (version 2): sets the status to `next` only when it is `expected` now, as one
   * atomic step; returns the changed task, or undefined (nothing changed) when the status was
   * another. Claims a given task (`pending` → `in_progress`), or finishes one only if nobody reset
   * it meanwhile (`in_progress` → `succeeded`). STORE/TASK_LIST_NOT_FOUND, STORE/TASK_NOT_FOUND.
   */
  compareAndSetStatus(listId: string, taskId: string, expected: TaskStatus, next: TaskStatus): Promise<Task | undefined>;
  /**
   * The agent's bounded retry: when the task has retries left (retries < maxRetries) counts one
   * and returns true; otherwise changes nothing and returns false. Atomic: N concurrent calls on a
   * task with maxRetries m return true exactly min(N, m) times.
   */
  incrementRetry(listId: string, taskId: string): Promise<boolean>;
  /** The human override: the task goes back to pending with its retries at 0, whatever its state. */
  forceRetry(listId: string, taskId: string): Promise<Task>;
  /** When a run ends: every in_progress task of the conversation (every agent) becomes succeeded. Returns how many did. */
  settleConversation(conversationId: string): Promise<number>;
}

export const DEFAULT_MAX_RETRIES = 3;
export const MAX_MAX_RETRIES = 1000;
export const MAX_TASK_TITLE_LENGTH = 1000;
/** Conversation and agent ids: 1-256 characters. */
export const MAX_TASK_OWNER_ID_LENGTH = 256;

function invalid(store: string, path: string, expected: string, given: unknown): never {
  throw createError("INVALID_ARGUMENT", `${path}: expected ${expected}`, { module: store, path, expected, given });
}

export function checkOwnerId(store: string, path: string, value: unknown): string {
  if (typeof value !== "string" || value.length === 0 || value.length > MAX_TASK_OWNER_ID_LENGTH) {
    invalid(store, path, `a string of 1-${MAX_TASK_OWNER_ID_LENGTH} characters`, value);
  }
  return value;
}

/** Task and list ids are whatever the store made; a non-string or empty one is INVALID_ARGUMENT. */
export function checkTaskId(store: string, path: string, value: unknown): string {
  if (typeof value !== "string" || value.length === 0 || value.length > 256) invalid(store, path, "an id the store returned (a non-empty string)", value);
  return value;
}

export function checkStatus(store: string, value: unknown, path = "status"): TaskStatus {
  if (typeof value !== "string" || !(TASK_STATUSES as readonly string[]).includes(value)) invalid(store, path, `one of ${TASK_STATUSES.join(", ")}`, value);
  return value as TaskStatus;
}

/** Validated copies of new tasks (maxRetries filled in); INVALID_ARGUMENT names the bad one. */
export function checkNewTasks(store: string, tasks: unknown, path = "tasks"): Array<{ title: string; maxRetries: number }> {
  if (!Array.isArray(tasks)) invalid(store, path, "an array of { title, maxRetries? }", tasks);
  return tasks.map((task: unknown, i) => {
    if (typeof task !== "object" || task === null) invalid(store, `${path}[${i}]`, "{ title, maxRetries? }", task);
    const { title, maxRetries = DEFAULT_MAX_RETRIES } = task as Record<string, unknown>;
    if (typeof title !== "string" || title.trim().length === 0 || title.length > MAX_TASK_TITLE_LENGTH) {
      invalid(store, `${path}[${i}].title`, `a non-blank string of at most ${MAX_TASK_TITLE_LENGTH} characters`, title);
    }
    if (typeof maxRetries !== "number" || !Number.isInteger(maxRetries) || maxRetries < 0 || maxRetries > MAX_MAX_RETRIES) {
      invalid(store, `${path}[${i}].maxRetries`, `an integer from 0 to ${MAX_MAX_RETRIES}`, maxRetries);
    }
    return { title, maxRetries };
  });
}

export function checkNewTaskList(store: string, list: unknown): { conversationId: string; agentId: string; tasks: Array<{ title: string; maxRetries: number }> } {
  if (typeof list !== "object" || list === null) invalid(store, "list", "{ conversationId, agentId, tasks }", list);
  const { conversationId, agentId, tasks } = list as Record<string, unknown>;
  return {
    conversationId: checkOwnerId(store, "list.conversationId", conversationId),
    agentId: checkOwnerId(store, "list.agentId", agentId),
    tasks: checkNewTasks(store, tasks, "list.tasks"),
  };
}

export function taskListNotFound(store: string, listId: string) {
  return storeErrors.create("TASK_LIST_NOT_FOUND", `no task list ${JSON.stringify(listId)}`, { module: store, path: "listId", given: listId });
}

export function taskNotFound(store: string, listId: string, taskId: string) {
  return storeErrors.create("TASK_NOT_FOUND", `task list ${JSON.stringify(listId)} has no task ${JSON.stringify(taskId)}`, { module: store, path: "taskId", given: taskId });
}
