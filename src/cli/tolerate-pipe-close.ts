/**
 * Lets a process stream's reader go away. `amplifier-ts sessions show s | head -1`: head exits
 * after one line, the next write fails with EPIPE, and a stream error nobody listens to crashes
 * Node with a stack trace. A shell tool would die quietly of SIGPIPE; Node ignores SIGPIPE, so
 * here the rest of the output is dropped instead (later writes to the destroyed stream fail
 * silently too) and the command runs to its end — stores closed, locks released, exit code kept.
 *
 * Any other stream error (a full disk behind a redirect) still surfaces: it is rethrown.
 */
export function toleratePipeClose(stream: NodeJS.WritableStream): NodeJS.WritableStream {
  let readerGone = false;
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (readerGone || error.code === "EPIPE") {
      readerGone = true;
      return;
    }
    throw error;
  });
  return stream;
}
