/**
 * Inbox subscriptions: a human's connection hears the request, resolved and badge events of the
 * sessions it asked for and of their descendants, or of the whole tenant with `"*"`.
 */
import { badRequest, notFound } from "../shared/errors.js";
import { requireRole } from "./access.js";
import type { Context } from "./context.js";
import type { Caller } from "./items.js";
import type { Sessions } from "./sessions.js";
import type { Subscriber } from "./stores/subscribers.js";

const SUBSCRIBER_TTL_SECONDS = 3 * 3600;
export const MAX_SUBSCRIBED_SESSIONS = 1_000;

export function createSubscriptions(ctx: Context, sessions: Sessions) {
  const { subscribers } = ctx.db;

  return {
    /** `badges`: whether the connection hears `session.badge` events, for every session it hears (the last subscribe says). */
    async subscribe(caller: Caller, connectionId: string, wanted: "*" | string[], { badges }: { badges: boolean }): Promise<void> {
      requireRole(caller, "subscribe");
      if (wanted !== "*") {
        const found = await sessions.lookup(caller, wanted);
        if (found.some((s) => s.updated_at === null)) throw notFound("session");
      }
      const ttl = Math.floor(ctx.now() / 1000) + SUBSCRIBER_TTL_SECONDS;
      if (wanted === "*") await subscribers.subscribeAll(caller.tenant, connectionId, caller.sub, badges, ttl);
      else if (!(await subscribers.subscribe(caller.tenant, connectionId, caller.sub, wanted, badges, MAX_SUBSCRIBED_SESSIONS, ttl)))
        throw badRequest(`a connection subscribes to at most ${MAX_SUBSCRIBED_SESSIONS} sessions (or to "*")`);
    },

    /**
     * The publisher of one stream batch: each tenant's subscribers are read once (every shard side by
     * side), at its first event, and serve the batch's later events. Every record of a batch was written before that read, so a
     * subscriber that was there before a change still hears of it. A failed read fails every event
     * waiting on it, so each of their records is retried.
     */
    audience() {
      const lists = new Map<string, Promise<Subscriber[]>>();
      const gone = new Set<string>(); // a 410 is for good: the batch's later events skip the connection
      return {
        /**
         * Push an event of a session to everyone subscribed to it or to one of its ancestors (a badge only to
         * those that hear badges), but to `answering`, the connection that gave a verdict and heard it in its
         * reply (only if it holds that verdict's giver's token: nobody silences another's tab); prune the dead.
         */
        async publish(tenant: string, sessionIds: string[], event: { type: string }, answering?: { connection_id: string; sub: string }): Promise<void> {
          if (!lists.has(tenant)) lists.set(tenant, subscribers.of(tenant));
          const all = await lists.get(tenant)!;
          const heard = (s: Subscriber) => s.all_sessions || sessionIds.some((id) => s.session_ids.has(id));
          const answered = (s: Subscriber) => s.connection_id === answering?.connection_id && s.sub === answering.sub;
          const listening = all.filter((s) => !gone.has(s.connection_id) && heard(s) && (s.badges || event.type !== "session.badge") && !answered(s));
          await Promise.all(
            listening.map(async (subscriber) => {
              if ((await ctx.push.send(subscriber.connection_id, event)) === "gone") {
                gone.add(subscriber.connection_id);
                await subscribers.prune(subscriber);
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
