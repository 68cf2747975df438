/**
 * The shape of a Scheduler target: the schedule's Input is the event. An input that can never be
 * valid is logged and dropped (a retry could not fix it); any other failure throws so Scheduler retries.
 */
import type { Context } from "aws-lambda";
import type { TimerName } from "../catalog.js";
import { servicesOf, type Services } from "./services.js";
import { env } from "../shared/env.js";
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

/**
 * A timer function that schedules its own `timer` again (a retry, a next round): those schedules
 * target this same function, whose ARN CloudFormation cannot put in its own environment (a cycle).
 * In Lambda it takes it from its first invocation, before its services are built.
 */
export function selfSchedulingTimerHandler(timer: TimerName, handle: (input: TimerInput, services: Services) => Promise<void>) {
  const run = timerHandler(handle);
  const variable = env.timerArn[timer];
  return async (event: unknown, context?: Partial<Context>): Promise<void> => {
    if (!process.env[variable] && context?.invokedFunctionArn && !("services" in context)) process.env[variable] = context.invokedFunctionArn;
    await run(event, context);
  };
}
