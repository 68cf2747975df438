/** Scheduler fired one attempt of a notification delivery; a failed attempt schedules the next one at this same function. */
import { selfSchedulingTimerHandler } from "./lambda/timer.js";

export const handler = selfSchedulingTimerHandler("notify", async (input, { tollgate }) => {
  if (input.target_id && input.event_id && input.attempt) await tollgate.notifications.attempt(input.tenant, input.target_id, input.event_id, input.attempt);
});
