/**
 * The timers (deadline, escalation grace, reconnect grace, notification attempts and reminders) as one-time EventBridge Scheduler
 * schedules, named after what they guard (docs/data-model.md "How each guarantee is kept": time). A name that exists already means the
 * job is scheduled; deleting one that ran or never existed is fine. Scheduler refuses an `at()`
 * that has passed, so a timer already due does its job at once instead (`startTimer`).
 */
import { createHash } from "node:crypto";
import { ConflictException, CreateScheduleCommand, DeleteScheduleCommand, ResourceNotFoundException, type SchedulerClient } from "@aws-sdk/client-scheduler";
import type { TimerName } from "../catalog.js";
import type { Config } from "../shared/config.js";
import type { TimerInput } from "../shared/schemas.js";
import type { ElicitationItem } from "./items.js";

export interface Timers {
  schedule(timer: TimerName, key: string, at: Date, input: TimerInput): Promise<void>;
  cancel(timer: TimerName, key: string): Promise<void>;
}

/**
 * A key made of its parts: joined by `-` when none holds one, so the schedule's name reads as what it
 * guards; otherwise as a JSON list, which is never a valid name and so is hashed. Ids may hold `-`:
 * joined, tenant `acme` with elicitation `eu-1` and tenant `acme-eu` with `1` would be one schedule.
 */
const keyOf = (...parts: (string | number)[]): string => (parts.some((part) => String(part).includes("-")) ? JSON.stringify(parts) : parts.join("-"));

/** What each timer guards, as the key of its schedule. */
export const timerKeys = {
  deadline: (item: Pick<ElicitationItem, "tenant" | "elicitation_id">) => keyOf(item.tenant, item.elicitation_id),
  /** One per block round: a re-armed block gets a schedule of its own. */
  escalation: (item: Pick<ElicitationItem, "tenant" | "elicitation_id" | "block_round">) => keyOf(item.tenant, item.elicitation_id, item.block_round ?? 1),
  runnerGone: (tenant: string, connectionId: string) => keyOf(tenant, connectionId),
  /** One per attempt (a retry is a schedule of its own), and one per lease of an attempt to look at once the lease is over. */
  notify: (tenant: string, targetId: string, eventId: string, attempt: number, afterLease?: number) =>
    keyOf(tenant, targetId, eventId, attempt, ...(afterLease === undefined ? [] : ["lease", afterLease])),
  /** One per round of one target's reminders of one elicitation. */
  reminder: (tenant: string, elicitationId: string, targetId: string, round: number) => keyOf(tenant, elicitationId, targetId, round),
};

/** A timer to start: when it is due, and the job it does then (what its Scheduler target does with `input`). */
export interface Timer {
  timer: TimerName;
  key: string;
  at: Date;
  input: TimerInput;
  due: () => Promise<void>;
}

/** The one rule for every timer: schedule it, or do its job now if `at` is not in the future (`now`, the clock's milliseconds). */
export async function startTimer(timers: Timers, now: number, timer: Timer): Promise<void> {
  if (timer.at.getTime() <= now) return timer.due();
  await timers.schedule(timer.timer, timer.key, timer.at, timer.input);
}

const prefixes: Record<TimerName, string> = { deadline: "deadline", escalation: "escalation", runnerGone: "gone", notify: "notify", reminder: "remind" };

/** Scheduler names are at most 64 of `0-9 a-z A-Z - _ .`: anything else is hashed. */
export function scheduleName(timer: TimerName, key: string): string {
  const name = `${prefixes[timer]}-${key}`;
  if (name.length <= 64 && /^[0-9a-zA-Z._-]+$/.test(name)) return name;
  return `${prefixes[timer]}-${createHash("sha256").update(key).digest("hex").slice(0, 48)}`;
}

/** `at()` takes whole seconds in UTC: round up so a schedule never fires early. */
const scheduledAt = (at: Date) => Math.ceil(at.getTime() / 1000) * 1000;

export function atExpression(at: Date): string {
  return `at(${new Date(scheduledAt(at)).toISOString().slice(0, 19)})`;
}

/**
 * Scheduler's retries of a target that failed: for a day, at most ten times (each handler re-reads
 * its item, so a late run is still right); what is left goes to the dead-letter queue, if one is set.
 */
const RETRY_POLICY = { MaximumEventAgeInSeconds: 86_400, MaximumRetryAttempts: 10 };

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
            Target: {
              Arn: config.targets[timer],
              RoleArn: config.roleArn,
              Input: JSON.stringify(input),
              RetryPolicy: RETRY_POLICY,
              ...(config.deadLetterArn ? { DeadLetterConfig: { Arn: config.deadLetterArn } } : {}),
            },
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
