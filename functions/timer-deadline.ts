/** Scheduler fired an elicitation's deadline: still pending means decline/timeout. */
import { domain } from "./domain/clients.js";
import { timerHandler } from "./shared/timer.js";

export const handler = timerHandler(async (input) => {
  if (input.elicitation_id) await domain().elicitations.expire(input.tenant, input.elicitation_id);
});
