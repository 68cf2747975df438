/** `elicit`: park on an elicitation; the verdict arrives later as its own frame. */
import { domain } from "./domain/clients.js";
import { ElicitFrame } from "./shared/schemas.js";
import { wsHandler } from "./shared/ws.js";

export const handler = wsHandler(ElicitFrame, async ({ caller, connection, frame }) => {
  const { elicitation_id, deadline } = await domain().runners.elicit(caller, connection, frame);
  return { type: "elicitation.parked", elicitation_id, deadline };
});
