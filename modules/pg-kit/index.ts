// @amplifier-ts/pg-kit: what every PostgreSQL package shares (driver: pg) — the connection url and
// its default user, redaction, pools, transactions, the checked-out client and the retry policy.
export { DEFAULT_PG_URL, connectionUrl, redactUrl, type UrlSource } from "./connection-url.js";
export { defaultUser, withDefaultUser } from "./default-user.js";
export { acquirePool, closePool, createPool, livePoolCount, type PoolLease, type PoolOptions } from "./pools.js";
export { answeredByServer, onCheckedOutClient } from "./checked-out-client.js";
export { uncertainWrite, withTransaction, type TransactionOptions, type UncertainWrite } from "./transaction.js";
export { backoffDelay, DEFAULT_RETRY, isTransient, withRetry, type RetryPolicy } from "./retry.js";
