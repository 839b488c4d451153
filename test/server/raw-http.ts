import { connect } from "node:net";

/**
 * One HTTP request written byte for byte on a fresh connection (Connection: close), so a test can
 * send what fetch never would: a foreign or missing Host, an encoded path, an absolute-form target.
 */
export interface RawAnswer {
  status: number;
  head: string;
  body: string;
}

export interface RawRequest {
  /** The request target as written on the request line. */
  target: string;
  /** The Host header's value; null sends none. */
  host: string | null;
  method?: string;
  version?: "HTTP/1.1" | "HTTP/1.0";
  headers?: Record<string, string>;
}

export function rawRequest(port: number, request: RawRequest): Promise<RawAnswer> {
  const lines = [`${request.method ?? "GET"} ${request.target} ${request.version ?? "HTTP/1.1"}`];
  if (request.host !== null) lines.push(`Host: ${request.host}`);
  for (const [name, value] of Object.entries(request.headers ?? {})) lines.push(`${name}: ${value}`);
  lines.push("Connection: close", "", "");
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(lines.join("\r\n")));
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => (text += chunk));
    socket.on("error", reject);
    socket.on("end", () => {
      const at = text.indexOf("\r\n\r\n");
      const head = at < 0 ? text : text.slice(0, at);
      resolve({ status: Number(head.split(" ")[1]), head, body: at < 0 ? "" : text.slice(at + 4) });
    });
  });
}
