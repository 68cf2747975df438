/** Scheduler fired one round of a pending elicitation's reminders to one target; it schedules the next round at this same function. */
import { selfSchedulingTimerHandler } from "./lambda/timer.js";

export const handler = selfSchedulingTimerHandler("reminder", async (input, { tollgate }) => {
  if (input.elicitation_id && input.target_id && input.round) await tollgate.reminders.fire(input.tenant, input.elicitation_id, input.target_id, input.round);
});
