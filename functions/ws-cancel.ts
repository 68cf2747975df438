/** `cancel`: the runner's task was cancelled; the reply is the verdict frame. */
import { verdictFrame, isResolved } from "./domain/items.js";
import { CancelFrame } from "./shared/schemas.js";
import { wsHandler } from "./lambda/ws.js";

export const handler = wsHandler(CancelFrame, async ({ caller, connection, frame }, { tollgate }) => {
  const { item, frame: claimed } = await tollgate.elicitations.cancel(caller, frame.elicitation_id, { reply_to: connection.id });
  return claimed ?? (isResolved(item) ? verdictFrame(item) : undefined);
});
