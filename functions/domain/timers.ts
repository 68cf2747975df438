/**
 * One-time EventBridge Scheduler schedules, named after what they guard (DESIGN-NOTES 4). A name
 * that exists already means the job is scheduled; deleting one that ran or never existed is fine.
 */
import { createHash } from "node:crypto";
import { ConflictException, CreateScheduleCommand, DeleteScheduleCommand, ResourceNotFoundException, type SchedulerClient } from "@aws-sdk/client-scheduler";
import type { TimerName } from "../catalog.js";
import type { Config } from "../shared/config.js";
import type { TimerInput } from "../shared/schemas.js";

export interface Timers {
  schedule(timer: TimerName, key: string, at: Date, input: TimerInput): Promise<void>;
  cancel(timer: TimerName, key: string): Promise<void>;
}

const prefixes: Record<TimerName, string> = { deadline: "deadline", escalation: "escalation", runnerGone: "gone" };

/** Scheduler names are at most 64 of `0-9 a-z A-Z - _ .`: anything else is hashed. */
export function scheduleName(timer: TimerName, key: string): string {
  const name = `${prefixes[timer]}-${key}`;
  if (name.length <= 64 && /^[0-9a-zA-Z._-]+$/.test(name)) return name;
  return `${prefixes[timer]}-${createHash("sha256").update(key).digest("hex").slice(0, 48)}`;
}

/** `at()` takes whole seconds in UTC: round up so a schedule never fires early. */
export function atExpression(at: Date): string {
  const seconds = new Date(Math.ceil(at.getTime() / 1000) * 1000);
  return `at(${seconds.toISOString().slice(0, 19)})`;
}

export function schedulerTimers(client: SchedulerClient, config: Config["scheduler"]): Timers {
  return {
    async schedule(timer, key, at, input) {
      try {
        await client.send(
          new CreateScheduleCommand({
            Name: scheduleName(timer, key),
            GroupName: config.group,
            ScheduleExpression: atExpression(at),
            ScheduleExpressionTimezone: "UTC",
            FlexibleTimeWindow: { Mode: "OFF" },
            ActionAfterCompletion: "DELETE",
            Target: { Arn: config.targets[timer], RoleArn: config.roleArn, Input: JSON.stringify(input) },
          }),
        );
      } catch (error) {
        if (!(error instanceof ConflictException)) throw error;
      }
    },
    async cancel(timer, key) {
      try {
        await client.send(new DeleteScheduleCommand({ Name: scheduleName(timer, key), GroupName: config.group }));
      } catch (error) {
        if (!(error instanceof ResourceNotFoundException)) throw error;
      }
    },
  };
}
