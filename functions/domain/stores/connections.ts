/** The connection item: who is on a WebSocket, which sessions it bound, and when it went away. */
import type { ConnectionItem } from "../items.js";
import { keys } from "./keys.js";
import type { Table } from "./table.js";

export type NewConnection = Omit<ConnectionItem, "pk" | "sk" | "kind" | "sessions" | "gone_at">;

export function connectionStore(table: Table) {
  const key = keys.connection;
  return {
    get: (tenant: string, connectionId: string) => table.get<ConnectionItem>(key(tenant, connectionId)),

    put: (connection: NewConnection) => table.put({ Item: { ...key(connection.tenant, connection.connection_id), kind: "connection", ...connection } }),

    /** Add sessions to the connection's set, unless that would take it past `max`; false when it would. */
    track: async (tenant: string, connectionId: string, sessionIds: string[], max: number) =>
      (await table.update({
        Key: key(tenant, connectionId),
        UpdateExpression: "ADD sessions :s",
        ConditionExpression: "attribute_not_exists(sessions) OR size(sessions) <= :room",
        ExpressionAttributeValues: { ":s": new Set(sessionIds), ":room": max - sessionIds.length },
      })) !== undefined,

    /** Mark a known connection gone, once. */
    markGone: (tenant: string, connectionId: string, at: string) =>
      table.update({
        Key: key(tenant, connectionId),
        UpdateExpression: "SET gone_at = :now",
        ConditionExpression: "attribute_exists(pk) AND attribute_not_exists(gone_at)",
        ExpressionAttributeValues: { ":now": at },
      }),
  };
}
export type ConnectionStore = ReturnType<typeof connectionStore>;
