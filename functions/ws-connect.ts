/** `$connect`: record who is on this connection (the authorizer already verified the token). */
import { domain } from "./domain/clients.js";
import { callerOf, type WsEvent } from "./shared/ws.js";

export const handler = async (event: WsEvent) => {
  await domain().connections.connect(callerOf(event), event.requestContext.connectionId);
  return { statusCode: 200 };
};
