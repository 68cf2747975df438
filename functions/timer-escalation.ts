/** Scheduler fired a block's escalation grace: tell the parent once if it still stands. */
import { timerHandler } from "./lambda/timer.js";

export const handler = timerHandler(async (input, { tollgate }) => {
  if (input.elicitation_id) await tollgate.escalation.fire(input.tenant, input.elicitation_id, input.round ?? 1);
});
