/**
 * Scheduler fired one attempt of a notification delivery. A failed attempt schedules the next one
 * at this same function, whose ARN CloudFormation cannot put in its own environment (a cycle): in
 * Lambda it takes it from its first invocation, before its services are built.
 */
import type { Context } from "aws-lambda";
import { timerHandler } from "./lambda/timer.js";
import { env } from "./shared/env.js";

const attempt = timerHandler(async (input, { tollgate }) => {
  if (input.target_id && input.event_id && input.attempt) await tollgate.notifications.attempt(input.tenant, input.target_id, input.event_id, input.attempt);
});

export const handler = async (event: unknown, context?: Partial<Context>): Promise<void> => {
  if (!process.env[env.timerArn.notify] && context?.invokedFunctionArn && !("services" in context)) process.env[env.timerArn.notify] = context.invokedFunctionArn;
  await attempt(event, context);
};
