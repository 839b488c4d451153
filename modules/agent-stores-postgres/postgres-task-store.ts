import { randomUUID } from "node:crypto";
import type pg from "pg";
import type { PostgresTaskStoreOptions } from "./agent-store-options.js";
import type { NewTask, NewTaskList, Task, TaskList, TaskStatus, TaskStore } from "@amplifier-ts/contracts";
import { checkNewTaskList, checkNewTasks, checkOwnerId, checkStatus, checkTaskId, taskListNotFound, taskNotFound } from "@amplifier-ts/contracts";
import { PgStore } from "./pg-store.js";

const MODULE = "agent-stores-postgres/tasks";

interface TaskRow {
  id: string;
  title: string;
  status: TaskStatus;
  retries: number;
  max_retries: number;
}

/**
 * Task boards in PostgreSQL: `<prefix>_task_lists` (one row per (conversation, agent), unique)
 * and `<prefix>_tasks` (position-ordered, ON DELETE CASCADE). Every read-modify-write runs in a
 * transaction that first takes the row lock of what it changes — `SELECT … FOR UPDATE` on the task
 * (updateStatus, incrementRetry, forceRetry) or on the list (addTasks, which numbers the new
 * positions) — so concurrent callers in any number of processes and pools queue on that row:
 * incrementRetry checks `retries < max_retries` on the locked row and never grants more than
 * maxRetries. createTaskList serialises on an advisory lock of its (conversation, agent) pair.
 */
export class PostgresTaskStore extends PgStore implements TaskStore {

  constructor(options: PostgresTaskStoreOptions = {}) {
    super(MODULE, options, (schema, prefix) => {
      const lists = `"${schema}"."${prefix}_task_lists"`;
      return [
        `CREATE TABLE IF NOT EXISTS ${lists} (id text PRIMARY KEY, conversation_id text NOT NULL, agent_id text NOT NULL, created_at timestamptz NOT NULL DEFAULT now(), UNIQUE (conversation_id, agent_id))`,
        `CREATE TABLE IF NOT EXISTS "${schema}"."${prefix}_tasks" (id text PRIMARY KEY, list_id text NOT NULL REFERENCES ${lists}(id) ON DELETE CASCADE, position integer NOT NULL, title text NOT NULL, status text NOT NULL CHECK (status IN ('pending', 'in_progress', 'succeeded', 'failed')), retries integer NOT NULL DEFAULT 0, max_retries integer NOT NULL)`,
        `CREATE INDEX IF NOT EXISTS "${prefix}_tasks_list" ON "${schema}"."${prefix}_tasks" (list_id, position)`,
      ];
    });
  }

  async createTaskList(list: NewTaskList): Promise<TaskList> {
    const checked = checkNewTaskList(MODULE, list);
    const id = randomUUID();
    const tasks = checked.tasks.map((t) => ({ id: randomUUID(), title: t.title, status: "pending" as const, retries: 0, maxRetries: t.maxRetries }));
    await this.db.transaction(async (client) => {
      await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`amplifier-task-list:${checked.conversationId}\u0001${checked.agentId}`]);
      await client.query(`DELETE FROM ${this.#lists} WHERE conversation_id = $1 AND agent_id = $2`, [checked.conversationId, checked.agentId]);
      await client.query(`INSERT INTO ${this.#lists} (id, conversation_id, agent_id) VALUES ($1, $2, $3)`, [id, checked.conversationId, checked.agentId]);
      await this.#insertTasks(client, id, 0, tasks);
    });
    return { id, conversationId: checked.conversationId, agentId: checked.agentId, tasks };
  }

  async getTaskList(conversationId: string, agentId: string): Promise<TaskList | undefined> {
    checkOwnerId(MODULE, "conversationId", conversationId);
    checkOwnerId(MODULE, "agentId", agentId);
    const { rows } = await this.db.query<{ id: string; tasks: TaskRow[] }>(
      `SELECT l.id,
              (SELECT coalesce(json_agg(json_build_object('id', t.id, 'title', t.title, 'status', t.status, 'retries', t.retries, 'max_retries', t.max_retries) ORDER BY t.position), '[]'::json)
                 FROM ${this.#tasks} t WHERE t.list_id = l.id) AS tasks
         FROM ${this.#lists} l WHERE l.conversation_id = $1 AND l.agent_id = $2`,
      [conversationId, agentId],
    );
    const row = rows[0];
    return row === undefined ? undefined : { id: row.id, conversationId, agentId, tasks: row.tasks.map(toTask) };
  }

  async addTasks(listId: string, tasks: readonly NewTask[]): Promise<Task[]> {
    checkTaskId(MODULE, "listId", listId);
    const added = checkNewTasks(MODULE, tasks).map((t) => ({ id: randomUUID(), title: t.title, status: "pending" as const, retries: 0, maxRetries: t.maxRetries }));
    await this.db.transaction(async (client) => {
      const list = await client.query(`SELECT id FROM ${this.#lists} WHERE id = $1 FOR UPDATE`, [listId]);
      if (list.rowCount === 0) throw taskListNotFound(MODULE, listId);
      const { rows } = await client.query<{ next: number }>(`SELECT coalesce(max(position) + 1, 0) AS next FROM ${this.#tasks} WHERE list_id = $1`, [listId]);
      await this.#insertTasks(client, listId, rows[0]!.next, added);
    });
    return added;
  }

  async updateStatus(listId: string, taskId: string, status: TaskStatus): Promise<Task> {
    const checked = checkStatus(MODULE, status);
    return this.#withLockedTask(listId, taskId, async (client) => {
      const { rows } = await client.query<TaskRow>(`UPDATE ${this.#tasks} SET status = $3 WHERE list_id = $1 AND id = $2 RETURNING id, title, status, retries, max_retries`, [listId, taskId, checked]);
      return toTask(rows[0]!);
    });
  }

  /**
   * One UPDATE of the first pending task, picked with `FOR UPDATE SKIP LOCKED`: concurrent claimers
   * each lock a different row instead of queueing on the first, and a row claimed and committed
   * meanwhile fails the `status = 'pending'` recheck, so no task is handed out twice. When that finds
   * nothing, the same pick without SKIP LOCKED waits for rows held at that instant (an
   * incrementRetry, a claim about to commit) — undefined then means no task was pending.
   */
  async claimNextTask(listId: string): Promise<Task | undefined> {
    checkTaskId(MODULE, "listId", listId);
    for (const skip of [true, false]) {
      const { rows } = await this.db.query<TaskRow>(
        `UPDATE ${this.#tasks} SET status = 'in_progress'
          WHERE id = (SELECT id FROM ${this.#tasks} WHERE list_id = $1 AND status = 'pending' ORDER BY position LIMIT 1 FOR UPDATE${skip ? " SKIP LOCKED" : ""})
          RETURNING id, title, status, retries, max_retries`,
        [listId],
      );
      if (rows[0] !== undefined) return toTask(rows[0]);
    }
    const list = await this.db.query(`SELECT 1 FROM ${this.#lists} WHERE id = $1`, [listId]);
    if (list.rowCount === 0) throw taskListNotFound(MODULE, listId);
    return undefined;
  }

  /** One UPDATE … WHERE status = expected: the row lock and PostgreSQL's recheck of the condition make it atomic. */
  async compareAndSetStatus(listId: string, taskId: string, expected: TaskStatus, next: TaskStatus): Promise<Task | undefined> {
    checkTaskId(MODULE, "listId", listId);
    checkTaskId(MODULE, "taskId", taskId);
    const from = checkStatus(MODULE, expected, "expected");
    const to = checkStatus(MODULE, next, "next");
    const { rows } = await this.db.query<TaskRow>(`UPDATE ${this.#tasks} SET status = $4 WHERE list_id = $1 AND id = $2 AND status = $3 RETURNING id, title, status, retries, max_retries`, [listId, taskId, from, to]);
    if (rows[0] !== undefined) return toTask(rows[0]);
    const found = await this.db.query(`SELECT (SELECT 1 FROM ${this.#lists} WHERE id = $1) AS list, (SELECT 1 FROM ${this.#tasks} WHERE list_id = $1 AND id = $2) AS task`, [listId, taskId]);
    const row = found.rows[0] as { list: number | null; task: number | null };
    if (row.list === null) throw taskListNotFound(MODULE, listId);
    if (row.task === null) throw taskNotFound(MODULE, listId, taskId);
    return undefined;
  }

  async incrementRetry(listId: string, taskId: string): Promise<boolean> {
    return this.#withLockedTask(listId, taskId, async (client, task) => {
      if (task.retries >= task.max_retries) return false;
      await client.query(`UPDATE ${this.#tasks} SET retries = retries + 1 WHERE list_id = $1 AND id = $2`, [listId, taskId]);
      return true;
    });
  }

  async forceRetry(listId: string, taskId: string): Promise<Task> {
    return this.#withLockedTask(listId, taskId, async (client) => {
      const { rows } = await client.query<TaskRow>(`UPDATE ${this.#tasks} SET status = 'pending', retries = 0 WHERE list_id = $1 AND id = $2 RETURNING id, title, status, retries, max_retries`, [listId, taskId]);
      return toTask(rows[0]!);
    });
  }

  async settleConversation(conversationId: string): Promise<number> {
    checkOwnerId(MODULE, "conversationId", conversationId);
    const result = await this.db.query(
      `UPDATE ${this.#tasks} SET status = 'succeeded' WHERE status = 'in_progress' AND list_id IN (SELECT id FROM ${this.#lists} WHERE conversation_id = $1)`,
      [conversationId],
    );
    return result.rowCount ?? 0;
  }

  /** `fn` in a transaction holding the task's row lock (SELECT … FOR UPDATE); TASK_LIST_NOT_FOUND / TASK_NOT_FOUND when absent. */
  #withLockedTask<T>(listId: string, taskId: string, fn: (client: pg.PoolClient, task: TaskRow) => Promise<T>): Promise<T> {
    checkTaskId(MODULE, "listId", listId);
    checkTaskId(MODULE, "taskId", taskId);
    return this.db.transaction(async (client) => {
      const { rows } = await client.query<TaskRow>(`SELECT id, title, status, retries, max_retries FROM ${this.#tasks} WHERE list_id = $1 AND id = $2 FOR UPDATE`, [listId, taskId]);
      const task = rows[0];
      if (task === undefined) {
        const list = await client.query(`SELECT 1 FROM ${this.#lists} WHERE id = $1`, [listId]);
        throw list.rowCount === 0 ? taskListNotFound(MODULE, listId) : taskNotFound(MODULE, listId, taskId);
      }
      return fn(client, task);
    });
  }

  async #insertTasks(client: pg.PoolClient, listId: string, firstPosition: number, tasks: readonly Task[]): Promise<void> {
    if (tasks.length === 0) return;
    await client.query(
      `INSERT INTO ${this.#tasks} (id, list_id, position, title, status, retries, max_retries)
       SELECT t.id, $1, $2 + t.ord - 1, t.title, 'pending', 0, t.max_retries
         FROM unnest($3::text[], $4::text[], $5::integer[]) WITH ORDINALITY AS t(id, title, max_retries, ord)`,
      [listId, firstPosition, tasks.map((t) => t.id), tasks.map((t) => t.title), tasks.map((t) => t.maxRetries)],
    );
  }

  get #lists(): string {
    return this.db.table("task_lists");
  }

  get #tasks(): string {
    return this.db.table("tasks");
  }
}

function toTask(row: TaskRow): Task {
  return { id: row.id, title: row.title, status: row.status, retries: row.retries, maxRetries: row.max_retries };
}
