/** `$disconnect` (best effort in API Gateway): start the reconnect grace of what the runner left pending. */
import { servicesOf } from "./lambda/services.js";
import { callerOf, type WsEvent } from "./lambda/ws.js";

export const handler = async (event: WsEvent, context?: unknown) => {
  await servicesOf(context).tollgate.connections.gone(callerOf(event).tenant, event.requestContext.connectionId);
  return { statusCode: 200 };
};
