// @amplifier-ts/server: the HTTP endpoints of amplifier-ts (fastify).
export { startServer, type RunningServer, type StartServerOptions } from "./start-server.js";
export { openApiDocument, LIMIT_DEFAULT, LIMIT_MAX } from "./openapi.js";
export { SERVER_LIMITS_DEFAULT, type ServerLimits } from "./server-limits.js";
export { isLoopbackHostName } from "./host-guard.js";
