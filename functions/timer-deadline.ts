/** Scheduler fired an elicitation's deadline: still pending means decline/timeout. */
import { timerHandler } from "./lambda/timer.js";

export const handler = timerHandler(async (input, { tollgate }) => {
  if (input.elicitation_id) await tollgate.elicitations.expire(input.tenant, input.elicitation_id);
});
