/** Scheduler fired a block's escalation grace: tell the parent once if it still stands. */
import { domain } from "./domain/clients.js";
import { timerHandler } from "./shared/timer.js";

export const handler = timerHandler(async (input) => {
  if (input.elicitation_id) await domain().escalation.fire(input.tenant, input.elicitation_id, input.round ?? 1);
});
