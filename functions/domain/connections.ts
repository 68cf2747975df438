/**
 * WebSocket connections: who is on the other end, which sessions a runner bound, and what happens
 * when it goes away (docs/protocol.md "Lifecycle rules" 3 and "Connections").
 */
import { badRequest } from "../shared/errors.js";
import type { Context } from "./context.js";
import type { Caller, ConnectionItem, ElicitationItem } from "./items.js";

export const MAX_SESSIONS_PER_CONNECTION = 1_000;

/** API Gateway closes every WebSocket after two hours; stale items expire a little later. */
const CONNECTION_TTL_SECONDS = 3 * 3600;

export function createConnections(ctx: Context) {
  const { connections, sessions, subscribers, elicitations } = ctx.db;

  return {
    find: connections.get,

    async connect(caller: Caller, connectionId: string): Promise<void> {
      await connections.put({
        tenant: caller.tenant,
        connection_id: connectionId,
        sub: caller.sub,
        role: caller.role,
        expires_at: Math.floor(ctx.now() / 1000) + CONNECTION_TTL_SECONDS,
      });
    },

    /**
     * Record sessions on the connection (what its runner-gone path will look at), at most
     * MAX_SESSIONS_PER_CONNECTION of them: the first write of a `hello`, so a refusal changes nothing.
     */
    async track(caller: Caller, connectionId: string, sessionIds: string[]): Promise<void> {
      if (sessionIds.length === 0) return;
      const tracked = await connections.track(caller.tenant, connectionId, sessionIds, MAX_SESSIONS_PER_CONNECTION);
      if (!tracked) throw badRequest(`a connection binds at most ${MAX_SESSIONS_PER_CONNECTION} sessions`);
    },

    /** Make this connection the sessions' runner: pushes for them go here from now on. */
    async bindRunner(caller: Caller, connectionId: string, sessionIds: string[]): Promise<void> {
      await Promise.all(sessionIds.map((sessionId) => sessions.bindRunner(caller.tenant, sessionId, connectionId)));
    },

    /**
     * `$disconnect`, or a push that met 410 Gone: mark the connection gone, once. The streams
     * handler does the rest (`afterGone`), so only it needs to touch schedules.
     */
    async gone(tenant: string, connectionId: string): Promise<void> {
      await connections.markGone(tenant, connectionId, ctx.iso());
    },

    /**
     * Unsubscribe and unbind its sessions. Returns when its reconnect grace ends, after which what it
     * left pending resolves `runner_gone`; undefined when it bound no session.
     */
    async afterGone(item: ConnectionItem): Promise<Date | undefined> {
      const { tenant, connection_id: connectionId } = item;
      await subscribers.remove(tenant, connectionId);
      const bound = [...(item.sessions ?? [])];
      await Promise.all(bound.map((sessionId) => sessions.unbindRunner(tenant, sessionId, connectionId)));
      if (bound.length === 0) return undefined;
      return new Date(Date.parse(item.gone_at!) + ctx.config.reconnectGraceSeconds * 1000);
    },

    /** The pending elicitations still bound to a connection that went away. */
    async leftBehind(tenant: string, connectionId: string): Promise<ElicitationItem[]> {
      const item = await connections.get(tenant, connectionId);
      if (!item?.gone_at) return [];
      const waiting = (await sessions.many(tenant, [...(item.sessions ?? [])])).filter((session) => session.pending_count > 0);
      const pending = await Promise.all(waiting.map((session) => elicitations.pendingIn(session)));
      return pending.flat().filter((e) => e.connection_id === connectionId);
    },
  };
}
export type Connections = ReturnType<typeof createConnections>;
