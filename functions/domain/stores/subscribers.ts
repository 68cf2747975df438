/**
 * The subscriber rows of a tenant: which inbox connection hears which sessions. A tenant's rows are
 * spread over `shards` partitions (`T#t#SUBSCRIBERS`, `T#t#SUBSCRIBERS#1`, ...) by a hash of the
 * connection id, so no one partition carries every read of a busy tenant (docs/scale.md).
 */
import { keys } from "./keys.js";
import type { Key, Table } from "./table.js";

interface SubscriberRow extends Key {
  connection_id: string;
  /** Whose token the connection holds (absent on rows written before it was kept). */
  sub?: string;
  all_sessions?: boolean;
  session_ids?: Set<string>;
  /** false when the connection counts for itself (absent on rows written before it could). */
  badges?: boolean;
}

/** One connection's subscription, from all of its rows. */
export interface Subscriber {
  connection_id: string;
  sub?: string;
  all_sessions: boolean;
  session_ids: Set<string>;
  /** Whether it hears `session.badge` events. */
  badges: boolean;
  /** Its rows: one, unless the shard count changed while it was subscribed (then one per shard it wrote to). */
  rows: Key[];
}

/** The rows of one connection merged into one subscriber, so it hears each event once. */
function merge(rows: SubscriberRow[]): Subscriber[] {
  const byConnection = new Map<string, Subscriber>();
  for (const row of rows) {
    const known = byConnection.get(row.connection_id);
    const subscriber = known ?? { connection_id: row.connection_id, sub: row.sub, all_sessions: false, session_ids: new Set<string>(), badges: true, rows: [] };
    subscriber.all_sessions ||= row.all_sessions === true;
    subscriber.badges &&= row.badges !== false;
    for (const id of row.session_ids ?? []) subscriber.session_ids.add(id);
    subscriber.rows.push({ pk: row.pk, sk: row.sk });
    byConnection.set(row.connection_id, subscriber);
  }
  return [...byConnection.values()];
}

export function subscriberStore(table: Table, shards: number) {
  const key = (tenant: string, connectionId: string) => keys.subscriber(tenant, connectionId, shards);
  const query = (pk: string) => table.queryAll<SubscriberRow>({ KeyConditionExpression: "pk = :pk", ExpressionAttributeValues: { ":pk": pk } });

  return {
    /** Every subscriber of the tenant: one Query per shard, side by side. */
    of: async (tenant: string) => merge((await Promise.all(keys.subscriberShards(tenant, shards).map(query))).flat()),

    /** The connection (of `sub`'s token) hears every session of the tenant (and their badges, or not). */
    subscribeAll: (tenant: string, connectionId: string, sub: string, badges: boolean, expiresAt: number) =>
      table.update({
        Key: key(tenant, connectionId),
        UpdateExpression: "SET connection_id = :c, #sub = :sub, expires_at = :ttl, all_sessions = :all, badges = :badges",
        ExpressionAttributeNames: { "#sub": "sub" },
        ExpressionAttributeValues: { ":c": connectionId, ":sub": sub, ":ttl": expiresAt, ":all": true, ":badges": badges },
      }),

    /** The connection hears these sessions too (and badges, or not), unless that takes it past `max`; false when it would. */
    subscribe: async (tenant: string, connectionId: string, sub: string, sessionIds: string[], badges: boolean, max: number, expiresAt: number) =>
      (await table.update({
        Key: key(tenant, connectionId),
        UpdateExpression: "SET connection_id = :c, #sub = :sub, expires_at = :ttl, badges = :badges ADD session_ids :ids",
        ConditionExpression: "attribute_not_exists(session_ids) OR size(session_ids) <= :room",
        ExpressionAttributeNames: { "#sub": "sub" },
        ExpressionAttributeValues: { ":c": connectionId, ":sub": sub, ":ttl": expiresAt, ":badges": badges, ":ids": new Set(sessionIds), ":room": max - sessionIds.length },
      })) !== undefined,

    /** The connection's row in its shard goes (its connection is gone). */
    remove: (tenant: string, connectionId: string) => table.delete({ Key: key(tenant, connectionId) }),

    /** Every row of a subscriber goes, wherever it is (`@connections` said its connection is gone). */
    prune: (subscriber: Subscriber) => Promise.all(subscriber.rows.map((row) => table.delete({ Key: row }))),
  };
}
export type SubscriberStore = ReturnType<typeof subscriberStore>;
