/**
 * WebSocket connections: who is on the other end, which sessions a runner bound, and what happens
 * when it goes away (PROTOCOL rule 3, DESIGN-NOTES 5).
 */
import { DeleteCommand, PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { badRequest } from "../shared/errors.js";
import type { Context } from "./context.js";
import { keys } from "./keys.js";
import type { Caller, ConnectionItem, ElicitationItem, PendingRow } from "./items.js";

export const MAX_SESSIONS_PER_CONNECTION = 1_000;

/** API Gateway closes every WebSocket after two hours; stale items expire a little later. */
const CONNECTION_TTL_SECONDS = 3 * 3600;

export function createConnections(ctx: Context) {
  const { db, table, ops } = ctx;
  const ttl = () => Math.floor(ctx.now() / 1000) + CONNECTION_TTL_SECONDS;

  async function unbindSession(tenant: string, sessionId: string, connectionId: string) {
    await ops.updated({
      Key: keys.session(tenant, sessionId),
      UpdateExpression: "REMOVE runner_connection_id",
      ConditionExpression: "runner_connection_id = :c",
      ExpressionAttributeValues: { ":c": connectionId },
    });
  }

  return {
    find: (tenant: string, connectionId: string) => ops.get<ConnectionItem>(keys.connection(tenant, connectionId)),

    async connect(caller: Caller, connectionId: string): Promise<void> {
      const item: ConnectionItem = {
        ...keys.connection(caller.tenant, connectionId),
        kind: "connection",
        tenant: caller.tenant,
        connection_id: connectionId,
        sub: caller.sub,
        role: caller.role,
        expires_at: ttl(),
      };
      await db.send(new PutCommand({ TableName: table, Item: item }));
    },

    /**
     * Record sessions on the connection (what its runner-gone path will look at), at most
     * MAX_SESSIONS_PER_CONNECTION of them: the first write of a `hello`, so a refusal changes nothing.
     */
    async track(caller: Caller, connectionId: string, sessionIds: string[]): Promise<void> {
      if (sessionIds.length === 0) return;
      const tracked = await ops.updated({
        Key: keys.connection(caller.tenant, connectionId),
        UpdateExpression: "ADD sessions :s",
        ConditionExpression: "attribute_not_exists(sessions) OR size(sessions) <= :room",
        ExpressionAttributeValues: { ":s": new Set(sessionIds), ":room": MAX_SESSIONS_PER_CONNECTION - sessionIds.length },
      });
      if (!tracked) throw badRequest(`a connection binds at most ${MAX_SESSIONS_PER_CONNECTION} sessions`);
    },

    /** Make this connection the sessions' runner: pushes for them go here from now on. */
    async bindRunner(caller: Caller, connectionId: string, sessionIds: string[]): Promise<void> {
      await Promise.all(
        sessionIds.map((sessionId) =>
          db.send(
            new UpdateCommand({
              TableName: table,
              Key: keys.session(caller.tenant, sessionId),
              UpdateExpression: "SET runner_connection_id = :c",
              ExpressionAttributeValues: { ":c": connectionId },
            }),
          ),
        ),
      );
    },

    /**
     * `$disconnect`, or a push that met 410 Gone: mark the connection gone, once. The streams
     * handler does the rest (`afterGone`), so only it needs to touch schedules.
     */
    async gone(tenant: string, connectionId: string): Promise<void> {
      await ops.updated({
        Key: keys.connection(tenant, connectionId),
        UpdateExpression: "SET gone_at = :now",
        ConditionExpression: "attribute_exists(pk) AND attribute_not_exists(gone_at)",
        ExpressionAttributeValues: { ":now": ctx.iso() },
      });
    },

    /** Unsubscribe, unbind its sessions, and start the reconnect grace, after which what it left pending resolves `runner_gone`. */
    async afterGone(item: ConnectionItem): Promise<void> {
      const { tenant, connection_id: connectionId } = item;
      await db.send(new DeleteCommand({ TableName: table, Key: keys.subscriber(tenant, connectionId) }));
      const sessions = [...(item.sessions ?? [])];
      await Promise.all(sessions.map((sessionId) => unbindSession(tenant, sessionId, connectionId)));
      if (sessions.length === 0) return;
      const at = new Date(Date.parse(item.gone_at!) + ctx.config.reconnectGraceSeconds * 1000);
      await ctx.timers.schedule("runnerGone", `${tenant}-${connectionId}`, at, { tenant, connection_id: connectionId });
    },

    /** The pending elicitations still bound to a connection that went away. */
    async leftBehind(tenant: string, connectionId: string): Promise<ElicitationItem[]> {
      const item = await ops.get<ConnectionItem>(keys.connection(tenant, connectionId));
      if (!item?.gone_at) return [];
      const rows = await Promise.all(
        [...(item.sessions ?? [])].map((sessionId) =>
          ops.queryPrefix<PendingRow>(keys.sessionPartition(tenant, sessionId), keys.prefix.pending),
        ),
      );
      const items = await Promise.all(rows.flat().map((row) => ops.get<ElicitationItem>(keys.elicitation(tenant, row.elicitation_id))));
      return items.filter((e): e is ElicitationItem => e?.status === "pending" && e.connection_id === connectionId);
    },
  };
}
export type Connections = ReturnType<typeof createConnections>;
