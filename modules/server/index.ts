// @amplifier-ts/server: the HTTP endpoints of amplifier-ts (fastify): a ready server, and its
// features as fastify plugins a host app registers under a prefix of its choosing.
export { startServer, type RunningServer, type StartServerOptions } from "./start-server.js";
export { memoryRoutes, type MemoryRoutesOptions } from "./memory-routes.js";
export { inspectorRoutes, INSPECTOR_PREFIX, type InspectorRoutesOptions } from "./inspector-routes.js";
export { inspectorPage, type InspectorPageOptions } from "./inspector-page-route.js";
export { createTokenGuard, type TokenGuard } from "./token-guard.js";
export { openApiDocument, LIMIT_DEFAULT, LIMIT_MAX } from "./openapi.js";
export { SERVER_LIMITS_DEFAULT, type ServerLimits } from "./server-limits.js";
export { isLoopbackHostName, registerHostGuard } from "./host-guard.js";
