/**
 * The most recent ids, at most `capacity` of them, oldest forgotten first: enough to drop a
 * redelivery (which comes soon after the first delivery), and bounded for a runner that lives for weeks.
 */
export class RecentIds {
  private readonly ids = new Set<string>();

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError("capacity must be a positive integer");
  }

  /** True the first time an id is seen while it is remembered; false for a repeat. */
  add(id: string): boolean {
    if (this.ids.has(id)) return false;
    this.ids.add(id);
    if (this.ids.size > this.capacity) this.ids.delete(this.ids.values().next().value as string);
    return true;
  }

  get size(): number {
    return this.ids.size;
  }
}
