/** Scheduler fired a reconnect grace: what the gone runner left pending resolves `runner_gone`. */
import { domain } from "./domain/clients.js";
import { timerHandler } from "./shared/timer.js";

export const handler = timerHandler(async (input) => {
  if (input.connection_id) await domain().runners.expireConnection(input.tenant, input.connection_id);
});
