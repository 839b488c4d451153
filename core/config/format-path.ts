import { formatPath as formatRootedPath } from "@amplifier-ts/contracts";

/**
 * JSON paths as users read them in error messages: `session.context.config.maxTokens`,
 * `tools[1].name`, `hooks[0].config["odd key"]`. The root is the empty path "". One writer of
 * paths: contracts' formatPath, here without a root name.
 */
export type PathSegment = string | number;

export function formatPath(segments: readonly PathSegment[]): string {
  return formatRootedPath("", segments);
}

/**
 * Split a JSON Pointer (RFC 6901) into segments. The pointer alone cannot tell the array index
 * `0` from the object key `"0"`, so the document is walked alongside.
 */
export function pointerToSegments(pointer: string, document: unknown): PathSegment[] {
  if (pointer === "") return [];
  const segments: PathSegment[] = [];
  let node: unknown = document;
  for (const raw of pointer.slice(1).split("/")) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(node) && /^(0|[1-9][0-9]*)$/.test(key)) {
      segments.push(Number(key));
      node = node[Number(key)];
    } else {
      segments.push(key);
      node = isRecord(node) ? node[key] : undefined;
    }
  }
  return segments;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}
