import { PgConnection, type PgConnectionOptions } from "./pg-connection.js";

/**
 * The face the blob, graph and task stores share: `kind`, and a lifecycle that is the
 * connection's — connect() runs the store's migrations once (and is optional: every operation
 * connects), disconnect() ends its pool and refuses later calls with STORE_CLOSED. A store adds
 * only its options, its tables (`migrations`) and its operations over `db`.
 */
export abstract class PgStore {
  readonly kind = "postgres";
  protected readonly db: PgConnection;

  protected constructor(module: string, options: PgConnectionOptions, migrations: (schema: string, prefix: string) => string[]) {
    this.db = new PgConnection(module, options, migrations);
  }

  connect(): Promise<void> {
    return this.db.connect();
  }

  disconnect(): Promise<void> {
    return this.db.disconnect();
  }
}
