/**
 * Answers remembered by key, all forgotten at once when `max` are held: a bound on memory for
 * values that are cheap to compute again and depend on their key alone.
 */
export function rememberUpTo<V>(max: number): (key: string, compute: () => V) => V {
  const known = new Map<string, V>();
  return (key, compute) => {
    let value = known.get(key);
    if (value === undefined) {
      if (known.size >= max) known.clear();
      value = compute();
      known.set(key, value);
    }
    return value;
  };
}

/** An answer and how long it holds, in milliseconds. */
export interface Held<V> {
  value: V;
  forMs: number;
}

/**
 * Answers remembered for as long as each one says it holds (a DNS TTL), at most `max` of them: past
 * that the one stored longest ago goes first. Callers asking for a key while its answer is being
 * computed share that computation, so a burst towards one key costs one computation. A computation
 * that throws is not remembered. `now` is a monotonic clock in milliseconds (tests bring their own).
 */
export function rememberFor<V>(
  max: number,
  now: () => number = () => performance.now(),
): (key: string, compute: () => Promise<Held<V>>) => Promise<V> {
  const known = new Map<string, { value: V; until: number }>();
  const pending = new Map<string, Promise<V>>();
  return (key, compute) => {
    const hit = known.get(key);
    if (hit && hit.until > now()) return Promise.resolve(hit.value);
    let running = pending.get(key);
    if (!running) {
      running = compute()
        .then(({ value, forMs }) => {
          // Deleted first, so a renewed key counts as newly stored (Map keeps insertion order).
          known.delete(key);
          if (known.size >= max) known.delete(known.keys().next().value as string);
          known.set(key, { value, until: now() + forMs });
          return value;
        })
        .finally(() => pending.delete(key));
      pending.set(key, running);
    }
    return running;
  };
}
