/** Pushes frames to WebSocket connections through the `@connections` API. */
import { PostToConnectionCommand, type ApiGatewayManagementApiClient } from "@aws-sdk/client-apigatewaymanagementapi";

export interface Pusher {
  /** `gone` when the connection no longer exists (410); other failures throw. */
  send(connectionId: string, frame: object): Promise<"sent" | "gone">;
}

export function connectionsPusher(client: ApiGatewayManagementApiClient): Pusher {
  return {
    async send(connectionId, frame) {
      try {
        await client.send(new PostToConnectionCommand({ ConnectionId: connectionId, Data: JSON.stringify(frame) }));
        return "sent";
      } catch (error) {
        const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
        if (e.name === "GoneException" || e.$metadata?.httpStatusCode === 410) return "gone";
        throw error;
      }
    },
  };
}
