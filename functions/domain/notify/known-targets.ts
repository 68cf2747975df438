/**
 * The notification targets as this function instance last read them, kept for `keptMs`: every
 * event reads its tenant's targets and every delivery attempt its own target, all in the tenant's one
 * targets partition, whose 3,000 read units a second would otherwise bound the tenant's verdicts a
 * second (docs/scale.md). Kept, the reads grow with the instances,
 * not with the events. The trade: a change of a target (created, changed, rotated, disabled or
 * removed) reaches an instance's events and attempts up to `keptMs` later.
 */
import { keptMap } from "../kept.js";
import type { TargetItem, TargetRecord } from "../stores/targets.js";

/** Tenants and targets an instance keeps at most. */
const KEPT = 1_000;

interface Reads {
  list(tenant: string): Promise<TargetItem[]>;
  findEventually(tenant: string, targetId: string): Promise<TargetItem | undefined>;
}

/** A read kept for `keptMs` after it started; a failed one is not kept. `keptMs` 0 keeps nothing. */
function keptReads<T>(now: () => number, keptMs: number) {
  const kept = keptMap<{ at: number; value: Promise<T> }>(KEPT);
  const keep = (key: string, at: number, value: Promise<T>) => {
    const entry = { at, value };
    kept.set(key, entry);
    value.catch(() => kept.get(key) === entry && kept.delete(key));
    return value;
  };
  return {
    read(key: string, read: () => Promise<T>): Promise<T> {
      const hit = kept.get(key);
      if (hit && now() - hit.at < keptMs) return hit.value;
      return keptMs > 0 ? keep(key, now(), read()) : read();
    },
    /** Change what is kept (while it is kept), without reading again. */
    amend(key: string, change: (value: T) => T) {
      const hit = kept.get(key);
      if (hit) keep(key, hit.at, hit.value.then(change));
    },
  };
}

export function knownTargets(store: Reads, now: () => number, keptMs: number) {
  const lists = keptReads<TargetItem[]>(now, keptMs);
  const targets = keptReads<TargetItem | undefined>(now, keptMs);
  const key = (tenant: string, targetId: string) => `${tenant}\n${targetId}`;
  return {
    /** Every target of the tenant, as an event's fan-out needs them. */
    list: (tenant: string) => lists.read(tenant, () => store.list(tenant)),
    /** One target, as an attempt sends with it. */
    find: (tenant: string, targetId: string) => targets.read(key(tenant, targetId), () => store.findEventually(tenant, targetId)),
    /** What this instance has since read or written of the target's attempts, so its next attempts decide from that. */
    learn(tenant: string, targetId: string, record: TargetRecord) {
      targets.amend(key(tenant, targetId), (target) => target && { ...target, last_attempts: record.last_attempts, failing_since: record.failing_since });
    },
  };
}
export type KnownTargets = ReturnType<typeof knownTargets>;
