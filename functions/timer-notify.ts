/** Scheduler fired one attempt of a notification delivery. */
import { domain } from "./domain/clients.js";
import { timerHandler } from "./shared/timer.js";

export const handler = timerHandler(async (input) => {
  if (input.target_id && input.event_id && input.attempt) await domain().notifications.attempt(input.tenant, input.target_id, input.event_id, input.attempt);
});
