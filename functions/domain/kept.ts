/**
 * At most `max` entries kept in this process, the oldest forgotten first: what a warm function
 * instance remembers of facts that stay true once seen, so a later call need not read them again.
 */
export function keptMap<V>(max: number) {
  const entries = new Map<string, V>();
  return {
    get: (key: string) => entries.get(key),
    set(key: string, value: V) {
      if (!entries.has(key) && entries.size >= max) entries.delete(entries.keys().next().value!);
      entries.set(key, value);
    },
    delete: (key: string) => entries.delete(key),
  };
}
