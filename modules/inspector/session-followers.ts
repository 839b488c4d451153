/** What a follower looks at: how many messages the session holds now (undefined: the source does not hold it). */
export type LookAtSession = () => Promise<number | undefined>;

/** Subscribes to a source's change notifications for the session (its `watch`); returns the unsubscribe. */
export type WatchSession = (onChange: () => void) => () => void;

interface Follower {
  listeners: Set<(messages: number) => void>;
  last: number | undefined;
  looking: boolean;
  again: boolean;
  stop: () => void;
}

/**
 * One follower per (source, session), shared by every stream that follows it: N pages open on
 * one session cost one look per tick, not N. A look asks the source for the session's message
 * count (for a history store: its `count`, which a read-only JSONL store answers from the bytes
 * appended since its last look), never the whole session; when the count moved, every listener
 * is told the new count. The source's `watch`, when it has one, replaces the timer.
 *
 * Looks never overlap: a change notified during a look runs one more look after it.
 */
export class SessionFollowers {
  #followers = new Map<string, Follower>();

  constructor(private readonly pollMs: number) {}

  /** Calls `onChange(count)` when the session's count changes; returns the stop function (the last one stops the follower). */
  follow(key: string, look: LookAtSession, watch: WatchSession | undefined, onChange: (messages: number) => void): () => void {
    let follower = this.#followers.get(key);
    if (follower === undefined) follower = this.#start(key, look, watch);
    follower.listeners.add(onChange);
    const joined = follower;
    return () => {
      if (!joined.listeners.delete(onChange) || joined.listeners.size > 0) return;
      joined.stop();
      if (this.#followers.get(key) === joined) this.#followers.delete(key);
    };
  }

  /** Sessions followed now (for tests and limits). */
  get size(): number {
    return this.#followers.size;
  }

  stopAll(): void {
    for (const follower of this.#followers.values()) follower.stop();
    this.#followers.clear();
  }

  #start(key: string, look: LookAtSession, watch: WatchSession | undefined): Follower {
    const follower: Follower = { listeners: new Set(), last: undefined, looking: false, again: false, stop: () => undefined };
    let stopped = false;
    let first = true;
    const tick = async () => {
      if (stopped) return;
      if (follower.looking) {
        follower.again = true;
        return;
      }
      follower.looking = true;
      try {
        do {
          follower.again = false;
          let now: number | undefined;
          try {
            now = await look();
          } catch {
            // A store that is down (or a session that went away) is looked at again next time.
            continue;
          }
          const changed = !first && now !== undefined && now !== follower.last;
          first = false;
          if (now !== undefined) follower.last = now;
          if (changed && !stopped) for (const listener of [...follower.listeners]) listener(now!);
        } while (follower.again && !stopped);
      } finally {
        follower.looking = false;
      }
    };
    void tick();
    const unwatch = watch?.(() => void tick());
    const timer = unwatch === undefined ? setInterval(() => void tick(), this.pollMs) : undefined;
    timer?.unref?.();
    follower.stop = () => {
      stopped = true;
      if (timer !== undefined) clearInterval(timer);
      unwatch?.();
    };
    this.#followers.set(key, follower);
    return follower;
  }
}
