/**
 * Key builders for the single table. The tenant leads every key, so no query can cross tenants.
 * Layout and access patterns: docs/data-model.md.
 */
import { mainTable } from "../../shared/tables.js";

const sessionPk = (tenant: string, sessionId: string) => `T#${tenant}#S#${sessionId}`;
const seq = (n: number) => String(n).padStart(12, "0");

/** FNV-1a over an id: the same shard for the same connection, session or elicitation in every function. */
function shardOf(id: string, shards: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % shards;
}

/**
 * A tenant-wide index partition (sessions, pending sessions, history) in one of `mainTable.indexShards`.
 * Shard 0 keeps the key of the one partition from before there were shards, so its entries are still read.
 */
const indexPk = (tenant: string, shard: number) => (shard === 0 ? `T#${tenant}` : `T#${tenant}#${shard}`);
const indexShards = (tenant: string) => Array.from({ length: mainTable.indexShards }, (_, shard) => indexPk(tenant, shard));

/** Shard 0 keeps the key of the tenant's one partition from before there were shards, so its rows are still read. */
const subscriberPk = (tenant: string, shard: number) => (shard === 0 ? `T#${tenant}#SUBSCRIBERS` : `T#${tenant}#SUBSCRIBERS#${shard}`);

export const keys = {
  session: (tenant: string, sessionId: string) => ({ pk: sessionPk(tenant, sessionId), sk: "SESSION" as const }),
  elicitation: (tenant: string, elicitationId: string) => ({ pk: `T#${tenant}#E#${elicitationId}`, sk: "ELICITATION" as const }),
  /** A session's own pending elicitation, in creation order. */
  pending: (tenant: string, sessionId: string, createdAt: string, elicitationId: string) => ({
    pk: sessionPk(tenant, sessionId),
    sk: `P#${createdAt}#${elicitationId}`,
  }),
  /** A descendant's pending elicitation mirrored under an ancestor. */
  descendant: (tenant: string, ancestorId: string, createdAt: string, elicitationId: string) => ({
    pk: sessionPk(tenant, ancestorId),
    sk: `D#${createdAt}#${elicitationId}`,
  }),
  /** A message or notice queued (or held) for a session's runner, in arrival order. */
  message: (tenant: string, sessionId: string, n: number) => ({ pk: sessionPk(tenant, sessionId), sk: `M#${seq(n)}` }),
  connection: (tenant: string, connectionId: string) => ({ pk: `T#${tenant}#C#${connectionId}`, sk: "CONNECTION" as const }),
  /** An inbox connection's subscriber row, in the shard its id hashes to (of `shards`). */
  subscriber: (tenant: string, connectionId: string, shards: number) => ({ pk: subscriberPk(tenant, shardOf(connectionId, shards)), sk: `C#${connectionId}` }),
  /** The partitions of a tenant's subscriber rows, one per shard. */
  subscriberShards: (tenant: string, shards: number) => Array.from({ length: shards }, (_, shard) => subscriberPk(tenant, shard)),
  /**
   * The rate counter of one token, operation and minute. The operation comes before the `sub`: a
   * `sub` is free text from the token and could contain `#`, an operation cannot.
   */
  rate: (tenant: string, operation: string, sub: string, windowStart: number) => ({
    pk: `T#${tenant}#RATE#${operation}#${sub}`,
    sk: new Date(windowStart).toISOString(),
  }),
  /** A resolved elicitation's place in its tenant's history (a sparse index), in the order of resolution. */
  history: (tenant: string, resolvedAt: string, elicitationId: string) => ({
    history_pk: indexPk(tenant, shardOf(elicitationId, mainTable.indexShards)),
    history_sk: `${resolvedAt}#${elicitationId}`,
  }),
  /** A tenant's notification targets share one partition: every event reads them all. */
  target: (tenant: string, targetId: string) => ({ pk: `T#${tenant}#TARGETS`, sk: `NT#${targetId}` }),
  targets: (tenant: string) => `T#${tenant}#TARGETS`,
  /** The delivery of one event to one target, a partition of its own: a busy target's deliveries heat no one key. */
  delivery: (tenant: string, targetId: string, eventId: string) => ({ pk: `T#${tenant}#NT#${targetId}#D#${eventId}`, sk: "DELIVERY" as const }),
  /** Where a delivery was kept when all of a target's shared its partition. */
  deliveryInTargetPartition: (tenant: string, targetId: string, eventId: string) => ({ pk: `T#${tenant}#NT#${targetId}`, sk: `D#${eventId}` }),
  sessionPartition: sessionPk,
  /** A session's partition in the tenant's session indexes (`tenant_pk`, `pending_pk`). */
  sessionIndex: (tenant: string, sessionId: string) => indexPk(tenant, shardOf(sessionId, mainTable.indexShards)),
  /** Every partition of one of the tenant's index: a page reads them all, side by side. */
  indexShards,
  prefix: { pending: "P#", descendant: "D#", message: "M#" },
} as const;
