// amplifier-ts/server: the HTTP endpoints (GET /memory/events, /memory/sessions, /openapi.json).
export * from "@amplifier-ts/server";
