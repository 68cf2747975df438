/** The session item: registration, its badge count, its runner binding and its message flush lease. */
import { mainTable, type IndexDefinition } from "../../shared/tables.js";
import type { SessionItem } from "../items.js";
import { keys } from "./keys.js";
import type { Key, Table, Write } from "./table.js";

/**
 * How many pending ids a session item lists at most: a write is billed by the item's size, so a session
 * with more pending at once gives the others a row each (docs/data-model.md).
 */
export const LISTED_MAX = 8;

/** A new session as the rules describe it; the store adds its keys and index keys. */
export type NewSession = Omit<SessionItem, "pk" | "sk" | "kind" | "tenant_pk" | "session_sk" | "pending_count">;

export function sessionStore(table: Table, indexes: { sessionsByTenant: IndexDefinition; pendingSessions: IndexDefinition } = mainTable.indexes) {
  const key = keys.session;
  return {
    get: (tenant: string, sessionId: string) => table.get<SessionItem>(key(tenant, sessionId)),

    /** A new session's item, with its keys and index keys, not yet written. */
    item: (session: NewSession): SessionItem => ({
      ...key(session.tenant, session.session_id),
      kind: "session",
      ...session,
      pending_count: 0,
      tenant_pk: keys.sessionIndex(session.tenant, session.session_id),
      session_sk: session.session_id,
    }),

    /** Put a new session's item; false when one with its id exists already. */
    create: (item: SessionItem) => table.put({ Item: item, ConditionExpression: "attribute_not_exists(pk)" }),

    retitle: async (tenant: string, sessionId: string, title: string, at: string) =>
      (await table.update<SessionItem>({
        Key: key(tenant, sessionId),
        UpdateExpression: "SET title = :title, updated_at = :now",
        ExpressionAttributeValues: { ":title": title, ":now": at },
      }))!,

    /**
     * A page of the tenant's sessions in id order, all of them or (sparse index) those whose count has
     * been above zero since the index last lost them, merged from the index's shards. The indexes hold
     * keys only: the page's sessions are then read by their keys.
     */
    async page(tenant: string, options: { limit: number; after?: string; pending: boolean }) {
      const index = options.pending ? indexes.pendingSessions : indexes.sessionsByTenant;
      const { after } = options;
      const { items: entries, last } = await table.queryShards<Key & { session_sk: string }>(
        keys.indexShards(tenant).map((shard) => ({
          IndexName: index.name,
          KeyConditionExpression: `${index.partitionKey} = :t`,
          ExpressionAttributeValues: { ":t": shard },
          ExclusiveStartKey: after ? { ...key(tenant, after), [index.partitionKey]: shard, session_sk: after } : undefined,
        })),
        "session_sk",
        options.limit,
      );
      const found = new Map((await table.batchGet<SessionItem>(entries.map(({ pk, sk }) => ({ pk, sk })))).map((item) => [item.session_id, item]));
      const items = entries.flatMap((entry) => (found.has(entry.session_sk) ? [found.get(entry.session_sk)!] : []));
      return { items, last };
    },

    /** The sessions of these ids that exist, in one round of reads. */
    many: (tenant: string, sessionIds: string[]) => table.batchGet<SessionItem>(sessionIds.map((id) => key(tenant, id))),

    /**
     * One more pending elicitation: a write of the raising transaction, which fails if the session is
     * gone. `listed`: its id goes on the item too, which fails as well while the item lists
     * `LISTED_MAX` ids already (the elicitation then has a row of its own). With `runner`, that
     * connection becomes the session's runner in the same write.
     */
    countUp: (up: { tenant: string; sessionId: string; elicitationId: string; at: string; runner?: string; listed: boolean }): Write => ({
      Update: {
        TableName: table.name,
        Key: key(up.tenant, up.sessionId),
        UpdateExpression: `ADD pending_count :one${up.listed ? ", pending_ids :id" : ""} SET pending_pk = :tenant, updated_at = :now${up.runner ? ", runner_connection_id = :runner" : ""}`,
        ConditionExpression: up.listed ? "attribute_exists(pk) AND (attribute_not_exists(pending_ids) OR size(pending_ids) < :listed)" : "attribute_exists(pk)",
        ExpressionAttributeValues: {
          ":one": 1,
          ":tenant": keys.sessionIndex(up.tenant, up.sessionId),
          ":now": up.at,
          ...(up.listed ? { ":id": new Set([up.elicitationId]), ":listed": LISTED_MAX } : {}),
          ...(up.runner ? { ":runner": up.runner } : {}),
        },
      },
    }),

    /** One pending elicitation fewer, no longer listed (DynamoDB drops the set with its last id): a write of the resolving transaction. */
    countDown: (tenant: string, sessionId: string, elicitationId: string, at: string): Write => ({
      Update: {
        TableName: table.name,
        Key: key(tenant, sessionId),
        UpdateExpression: "ADD pending_count :minus SET updated_at = :now DELETE pending_ids :id",
        ExpressionAttributeValues: { ":minus": -1, ":id": new Set([elicitationId]), ":now": at },
      },
    }),

    /** Out of the sparse pending index, if the count is still zero (a raise since puts it back in). */
    leavePendingIndex: (tenant: string, sessionId: string) =>
      table.update({
        Key: key(tenant, sessionId),
        UpdateExpression: "REMOVE pending_pk",
        ConditionExpression: "pending_count <= :zero",
        ExpressionAttributeValues: { ":zero": 0 },
      }),

    bindRunner: (tenant: string, sessionId: string, connectionId: string) =>
      table.update({ Key: key(tenant, sessionId), UpdateExpression: "SET runner_connection_id = :c", ExpressionAttributeValues: { ":c": connectionId } }),

    /** Forget the runner, if it is still this connection. */
    unbindRunner: (tenant: string, sessionId: string, connectionId: string) => table.clearIf(key(tenant, sessionId), "runner_connection_id", connectionId),

    /** The next place in the session's message queue: the session with its new `message_seq`, or undefined if there is none. */
    nextMessageSeq: (tenant: string, sessionId: string) =>
      table.update<SessionItem>({
        Key: key(tenant, sessionId),
        UpdateExpression: "ADD message_seq :one",
        ConditionExpression: "attribute_exists(pk)",
        ExpressionAttributeValues: { ":one": 1 },
      }),

    /** Take the session's flush lease until `until`: the session as it stands then, or undefined while another flusher holds it. */
    lease: (tenant: string, sessionId: string, until: number, now: number) =>
      table.update<SessionItem>({
        Key: key(tenant, sessionId),
        UpdateExpression: "SET flush_lease = :until",
        ConditionExpression: "attribute_exists(pk) AND (attribute_not_exists(flush_lease) OR flush_lease < :now)",
        ExpressionAttributeValues: { ":until": until, ":now": now },
      }),

    /** Give the lease back, if it is still the one taken until `until`. */
    unlease: (tenant: string, sessionId: string, until: number) => table.clearIf(key(tenant, sessionId), "flush_lease", until),
  };
}
export type SessionStore = ReturnType<typeof sessionStore>;
