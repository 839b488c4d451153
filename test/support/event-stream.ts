/** A text/event-stream response read as text, as far as a test needs. */
export interface EventStreamText {
  /** Reads on until everything received so far matches `pattern`; rejects if the stream ends first. */
  until(pattern: RegExp): Promise<void>;
  cancel(): Promise<void>;
}

export function readEventStream(response: Response): EventStreamText {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  return {
    until: async (pattern) => {
      while (!pattern.test(text)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended before ${pattern}: ${text}`);
        text += value;
      }
    },
    cancel: () => reader.cancel(),
  };
}
