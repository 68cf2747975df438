/** The rows of a session's message queue (`M#<seq>`): appended, claimed before a push, deleted after it. */
import type { MessageItem } from "../items.js";
import { keys } from "./keys.js";
import type { Table } from "./table.js";

export type NewMessage = Omit<MessageItem, "pk" | "sk" | "kind" | "claimed_at">;
type Row = Pick<MessageItem, "pk" | "sk">;

export function messageStore(table: Table) {
  const key = (row: Row) => ({ pk: row.pk, sk: row.sk });
  return {
    async append(message: NewMessage): Promise<MessageItem> {
      const row: MessageItem = { ...keys.message(message.tenant, message.session_id, message.seq), kind: "message", ...message };
      await table.put({ Item: row });
      return row;
    },

    /** The session's queue, in order. */
    queued: (tenant: string, sessionId: string) =>
      table.queryAll<MessageItem>({
        KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)",
        ExpressionAttributeValues: { ":pk": keys.sessionPartition(tenant, sessionId), ":prefix": keys.prefix.message },
        ConsistentRead: true,
      }),

    stillQueued: async (row: Row) => (await table.get<MessageItem>(key(row))) !== undefined,

    /** Claim a row for one push; false when it is gone or claimed since `staleBefore` by another flusher. */
    claim: async (row: Row, now: number, staleBefore: number) =>
      (await table.update({
        Key: key(row),
        UpdateExpression: "SET claimed_at = :now",
        ConditionExpression: "attribute_exists(pk) AND (attribute_not_exists(claimed_at) OR claimed_at < :stale)",
        ExpressionAttributeValues: { ":now": now, ":stale": staleBefore },
      })) !== undefined,

    unclaim: (row: Row) => table.update({ Key: key(row), UpdateExpression: "REMOVE claimed_at", ConditionExpression: "attribute_exists(pk)" }),

    /** A delivered row leaves the queue. */
    delivered: (row: Row) => table.delete({ Key: key(row) }),

    /** Take back a row that still waits unclaimed; false when it was already on its way. */
    withdraw: (tenant: string, sessionId: string, seq: number) =>
      table.delete({ Key: keys.message(tenant, sessionId, seq), ConditionExpression: "attribute_exists(pk) AND attribute_not_exists(claimed_at)" }),
  };
}
export type MessageStore = ReturnType<typeof messageStore>;
