/** `$connect`: record who is on this connection (the authorizer already verified the token). */
import { servicesOf } from "./lambda/services.js";
import { callerOf, type WsEvent } from "./lambda/ws.js";

export const handler = async (event: WsEvent, context?: unknown) => {
  await servicesOf(context).tollgate.connections.connect(callerOf(event), event.requestContext.connectionId);
  return { statusCode: 200 };
};
