/** The subscriber rows of a tenant (`T#t#SUBSCRIBERS`): which inbox connection hears which sessions. */
import { keys } from "./keys.js";
import type { Table } from "./table.js";

export interface SubscriberRow {
  pk: string;
  sk: string;
  connection_id: string;
  all_sessions?: boolean;
  session_ids?: Set<string>;
}

export function subscriberStore(table: Table) {
  return {
    /** Every subscriber of the tenant. */
    of: (tenant: string) => table.queryAll<SubscriberRow>({ KeyConditionExpression: "pk = :pk", ExpressionAttributeValues: { ":pk": keys.subscribers(tenant) } }),

    /** The connection hears every session of the tenant. */
    subscribeAll: (tenant: string, connectionId: string, expiresAt: number) =>
      table.update({
        Key: keys.subscriber(tenant, connectionId),
        UpdateExpression: "SET connection_id = :c, expires_at = :ttl, all_sessions = :all",
        ExpressionAttributeValues: { ":c": connectionId, ":ttl": expiresAt, ":all": true },
      }),

    /** The connection hears these sessions too, unless that takes it past `max`; false when it would. */
    subscribe: async (tenant: string, connectionId: string, sessionIds: string[], max: number, expiresAt: number) =>
      (await table.update({
        Key: keys.subscriber(tenant, connectionId),
        UpdateExpression: "SET connection_id = :c, expires_at = :ttl ADD session_ids :ids",
        ConditionExpression: "attribute_not_exists(session_ids) OR size(session_ids) <= :room",
        ExpressionAttributeValues: { ":c": connectionId, ":ttl": expiresAt, ":ids": new Set(sessionIds), ":room": max - sessionIds.length },
      })) !== undefined,

    remove: (tenant: string, connectionId: string) => table.delete({ Key: keys.subscriber(tenant, connectionId) }),
  };
}
export type SubscriberStore = ReturnType<typeof subscriberStore>;
