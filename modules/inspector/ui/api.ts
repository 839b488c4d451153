/**
 * The page's access to the server's data routes. With a token, the browser holds the server's
 * session cookie (HttpOnly, SameSite=Strict, set when `/?token=…` was opened): same-origin fetches
 * carry it, so the page itself never sees nor stores the token. A 401 means the cookie is missing
 * or stale (the server restarted): the page says to open `/?token=…` again.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export async function getJson<T>(path: string): Promise<T> {
  const response = await fetch(path, { credentials: "same-origin", cache: "no-store" });
  if (!response.ok) {
    const body = (await response.json().catch(() => undefined)) as { message?: string } | undefined;
    throw new HttpError(response.status, body?.message ?? `${response.status} ${response.statusText}`);
  }
  return (await response.json()) as T;
}

/**
 * Reads a server-sent event stream with fetch; calls `onEvent(name, data)` for each event until
 * `signal` aborts. Reconnects after a dropped connection (2 s later).
 */
export function followEvents(path: string, onEvent: (name: string, data: string) => void, signal: AbortSignal): void {
  const run = async () => {
    while (!signal.aborted) {
      try {
        const response = await fetch(path, { headers: { accept: "text/event-stream" }, credentials: "same-origin", signal, cache: "no-store" });
        if (!response.ok || response.body === null) throw new HttpError(response.status, "live stream refused");
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          let end: number;
          while ((end = buffer.indexOf("\n\n")) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            let name = "message";
            const data: string[] = [];
            for (const line of block.split("\n")) {
              if (line.startsWith("event:")) name = line.slice(6).trim();
              else if (line.startsWith("data:")) data.push(line.slice(5).trimStart());
            }
            if (data.length > 0) onEvent(name, data.join("\n"));
          }
        }
      } catch (error) {
        if (signal.aborted) return;
        if (error instanceof HttpError && error.status === 401) return;
      }
      await new Promise((resolve) => setTimeout(resolve, 2_000));
    }
  };
  void run();
}
