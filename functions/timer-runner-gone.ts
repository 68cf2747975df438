/** Scheduler fired a reconnect grace: what the gone runner left pending resolves `runner_gone`. */
import { timerHandler } from "./lambda/timer.js";

export const handler = timerHandler(async (input, { tollgate }) => {
  if (input.connection_id) await tollgate.runners.expireConnection(input.tenant, input.connection_id);
});
