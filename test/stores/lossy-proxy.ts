import { createConnection, createServer, type Server, type Socket } from "node:net";

/**
 * A TCP proxy in front of a real server, for tests of writes whose outcome the client cannot
 * know. It forwards both ways; while `swallow` is set, a connection whose client sent a chunk
 * holding `marker` (a command name, a statement's text) is cut when the server's answer arrives:
 * the server did the work, the client never hears of it. With `refuseAfterSwallow`, every
 * connection is cut and new ones refused once a reply was swallowed (the server "went away").
 */
export interface LossyProxy {
  readonly url: string;
  swallow: boolean;
  refuseAfterSwallow: boolean;
  /** Replies swallowed so far. */
  readonly swallowed: number;
  close(): Promise<void>;
}

export async function lossyProxy(upstream: { host: string; port: number }, marker: string, scheme: string): Promise<LossyProxy> {
  const sockets = new Set<Socket>();
  let refusing = false;
  const cutAll = () => {
    for (const s of sockets) s.destroy();
  };
  const server: Server = createServer((client) => {
    if (refusing) return void client.destroy();
    const target = createConnection(upstream);
    sockets.add(client).add(target);
    let marked = false;
    client.on("data", (chunk) => {
      if (state.swallow && chunk.includes(marker)) marked = true;
      target.write(chunk);
    });
    target.on("data", (chunk) => {
      if (!marked) return void client.write(chunk);
      state.swallowed++;
      client.destroy();
      target.destroy();
      if (state.refuseAfterSwallow) {
        refusing = true;
        cutAll();
      }
    });
    const end = () => {
      client.destroy();
      target.destroy();
      sockets.delete(client);
      sockets.delete(target);
    };
    client.on("error", end).on("close", end);
    target.on("error", end).on("close", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  const state = {
    url: `${scheme}://127.0.0.1:${port}`,
    swallow: false,
    refuseAfterSwallow: false,
    swallowed: 0,
    close: () =>
      new Promise<void>((resolve) => {
        refusing = true;
        cutAll();
        server.close(() => resolve());
      }),
  };
  return state;
}
