/**
 * The shape of a Scheduler target: the schedule's Input is the event. An input that can never be
 * valid is logged and dropped (a retry could not fix it); any other failure throws so Scheduler retries.
 */
import { servicesOf, type Services } from "./services.js";
import { logger } from "../shared/logger.js";
import { TimerInput } from "../shared/schemas.js";

export function timerHandler(handle: (input: TimerInput, services: Services) => Promise<void>) {
  return async (event: unknown, context?: unknown): Promise<void> => {
    const input = TimerInput.safeParse(event);
    if (!input.success) {
      logger.error("schedule input is not valid", { issues: input.error.issues.map((i) => i.message) });
      return;
    }
    await handle(input.data, servicesOf(context));
  };
}
