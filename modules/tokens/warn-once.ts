/**
 * "Say it once": the unknown-model warning is emitted once per model name per sink, so a loop
 * that counts every turn does not flood the log, while a second sink (a test's spy, another
 * component's logger) still hears about it.
 */
export type WarningSink = (message: string) => void;

const defaultSink: WarningSink = (message) => console.warn(message);
const said = new WeakMap<WarningSink, Set<string>>();

export function warnOnce(key: string, message: string, sink: WarningSink = defaultSink): void {
  let keys = said.get(sink);
  if (!keys) {
    keys = new Set();
    said.set(sink, keys);
  }
  if (keys.has(key)) return;
  keys.add(key);
  sink(message);
}
