/**
 * Scheduler fired one attempt of a notification delivery. A failed attempt schedules the next one
 * at this same function, whose ARN CloudFormation cannot put in its own environment (a cycle):
 * it learns it from the invocation instead.
 */
import type { Context } from "aws-lambda";
import { domain } from "./domain/clients.js";
import { env } from "./shared/env.js";
import { timerHandler } from "./shared/timer.js";

const attempt = timerHandler(async (input) => {
  if (input.target_id && input.event_id && input.attempt) await domain().notifications.attempt(input.tenant, input.target_id, input.event_id, input.attempt);
});

export const handler = async (event: unknown, context?: Pick<Context, "invokedFunctionArn">): Promise<void> => {
  if (!process.env[env.timerArn.notify] && context?.invokedFunctionArn) process.env[env.timerArn.notify] = context.invokedFunctionArn;
  await attempt(event);
};
