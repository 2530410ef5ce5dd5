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
