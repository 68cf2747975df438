/** `subscribe`: the inbox hears request, resolved and badge events of these sessions and below. */
import { SubscribeFrame } from "./shared/schemas.js";
import { wsHandler } from "./lambda/ws.js";

export const handler = wsHandler(SubscribeFrame, async ({ caller, connection, frame }, { tollgate }) => {
  await tollgate.subscriptions.subscribe(caller, connection.id, frame.sessions, { badges: frame.badges ?? true });
  return { type: "subscribed", connection_id: connection.id };
});
