/** `elicit`: park on an elicitation; the verdict arrives later as its own frame. */
import { ElicitFrame } from "./shared/schemas.js";
import { wsHandler } from "./lambda/ws.js";

export const handler = wsHandler(ElicitFrame, async ({ caller, connection, frame }, { tollgate }) => {
  const { elicitation_id, deadline } = await tollgate.runners.elicit(caller, connection, frame);
  return { type: "elicitation.parked", elicitation_id, deadline };
});
