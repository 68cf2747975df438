/** `subscribe`: the inbox hears request, resolved and badge events of these sessions and below. */
import { domain } from "./domain/clients.js";
import { SubscribeFrame } from "./shared/schemas.js";
import { wsHandler } from "./shared/ws.js";

export const handler = wsHandler(SubscribeFrame, async ({ caller, connection, frame }) => {
  await domain().subscriptions.subscribe(caller, connection.id, frame.sessions);
  return { type: "subscribed" };
});
