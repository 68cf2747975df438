/**
 * Inbox subscriptions: a human's connection hears the request, resolved and badge events of the
 * sessions it asked for and of their descendants, or of the whole tenant with `"*"`.
 */
import { DeleteCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { badRequest, notFound } from "../shared/errors.js";
import { requireRole } from "./access.js";
import type { Context } from "./context.js";
import { keys } from "./keys.js";
import type { Caller } from "./items.js";
import type { Sessions } from "./sessions.js";

interface SubscriberRow {
  pk: string;
  sk: string;
  connection_id: string;
  all_sessions?: boolean;
  session_ids?: Set<string>;
}

const SUBSCRIBER_TTL_SECONDS = 3 * 3600;
export const MAX_SUBSCRIBED_SESSIONS = 1_000;

export function createSubscriptions(ctx: Context, sessions: Sessions) {
  const { db, table, ops } = ctx;

  async function subscribers(tenant: string): Promise<SubscriberRow[]> {
    const rows: SubscriberRow[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const out = await db.send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression: "pk = :pk",
          ExpressionAttributeValues: { ":pk": keys.subscribers(tenant) },
          ExclusiveStartKey: start,
        }),
      );
      rows.push(...((out.Items ?? []) as SubscriberRow[]));
      start = out.LastEvaluatedKey;
    } while (start);
    return rows;
  }

  return {
    async subscribe(caller: Caller, connectionId: string, wanted: "*" | string[]): Promise<void> {
      requireRole(caller, "subscribe");
      if (wanted !== "*") {
        const found = await sessions.lookup(caller, wanted);
        if (found.some((s) => s.updated_at === null)) throw notFound("session");
      }
      const subscribed = await ops.updated({
        Key: keys.subscriber(caller.tenant, connectionId),
        UpdateExpression: wanted === "*" ? "SET connection_id = :c, expires_at = :ttl, all_sessions = :all" : "SET connection_id = :c, expires_at = :ttl ADD session_ids :ids",
        ConditionExpression: wanted === "*" ? undefined : "attribute_not_exists(session_ids) OR size(session_ids) <= :room",
        ExpressionAttributeValues: {
          ":c": connectionId,
          ":ttl": Math.floor(ctx.now() / 1000) + SUBSCRIBER_TTL_SECONDS,
          ...(wanted === "*" ? { ":all": true } : { ":ids": new Set(wanted), ":room": MAX_SUBSCRIBED_SESSIONS - wanted.length }),
        },
      });
      if (!subscribed) throw badRequest(`a connection subscribes to at most ${MAX_SUBSCRIBED_SESSIONS} sessions (or to "*")`);
    },

    /**
     * The publisher of one stream batch: each tenant's subscribers are read once, at its first event,
     * and serve the batch's later events. Every record of a batch was written before that read, so a
     * subscriber that was there before a change still hears of it. A failed read fails every event
     * waiting on it, so each of their records is retried.
     */
    audience() {
      const lists = new Map<string, Promise<SubscriberRow[]>>();
      const gone = new Set<string>(); // a 410 is for good: the batch's later events skip the connection
      return {
        /** Push an event of a session to everyone subscribed to it or to one of its ancestors; prune the dead. */
        async publish(tenant: string, sessionIds: string[], event: object): Promise<void> {
          if (!lists.has(tenant)) lists.set(tenant, subscribers(tenant));
          const rows = await lists.get(tenant)!;
          const listening = rows.filter((row) => !gone.has(row.connection_id) && (row.all_sessions || sessionIds.some((id) => row.session_ids?.has(id))));
          await Promise.all(
            listening.map(async (row) => {
              if ((await ctx.push.send(row.connection_id, event)) === "gone") {
                gone.add(row.connection_id);
                await db.send(new DeleteCommand({ TableName: table, Key: { pk: row.pk, sk: row.sk } }));
              }
            }),
          );
        },
      };
    },
  };
}
export type Subscriptions = ReturnType<typeof createSubscriptions>;
export type Audience = ReturnType<Subscriptions["audience"]>;
