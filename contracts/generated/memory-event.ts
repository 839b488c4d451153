/* eslint-disable */
/**
 * Generated from contracts/schemas/memory-event.schema.json by `npm run contracts` (contracts/generate.mjs) — do not edit.
 * The schemas are emitted from their zod sources (contracts/emit-schemas.mjs): edit those and run
 * `npm run contracts`; test/contracts/generated-fresh.test.ts fails while this file is stale.
 */

/**
 * Any JSON value
 */
export type JsonValue = _Schema0;
export type _Schema0 =
  | string
  | number
  | boolean
  | null
  | _Schema0[]
  | {
      [k: string]: _Schema0;
    };

/**
 * A memory event as JSON: the interchange shape, snake_case keys and an ISO-8601 timestamp.
 */
export interface MemoryEventJson {
  event_id: string;
  /**
   * ISO-8601 date and time; UTC (Z) when written by amplifier-ts
   */
  timestamp: string;
  /**
   * user_message, agent_response, tool_call, tool_result, delegation_request, delegation_response, error, or another name
   */
  event_type: string;
  content: JsonValue;
  /**
   * Additional context (JSON object); {} when absent
   */
  metadata?: {
    [k: string]: JsonValue;
  };
}
