// @ts-check
// Bounded memories: what the inbox keeps of what it heard, forgetting the oldest first.

/** Forgets the oldest entries past `max` (a Set and a Map both iterate in insertion order). @param {Set<string> | Map<string, unknown>} kept @param {number} max */
export function forgetOldest(kept, max) {
  for (const key of kept.keys()) {
    if (kept.size <= max) return;
    kept.delete(key);
  }
}
