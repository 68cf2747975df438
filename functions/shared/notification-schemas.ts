/** The notification targets' boundary (docs/notifications.md): what a `service` token may set. */
import * as z from "./zod.js";
import { Id } from "./schemas.js";

export const NOTIFICATION_LIMITS = { urlLength: 2_048, sessions: 20, remindAfterSeconds: { min: 60, max: 604_800 }, remindTimes: { min: 1, max: 24, default: 3 } } as const;

export const NotificationEvent = z.enum(["elicitation.requested", "elicitation.resolved", "elicitation.escalated", "elicitation.reminder"]);
export type NotificationEvent = z.infer<typeof NotificationEvent>;

export const PutTargetBody = z
  .strictObject({
    kind: z.enum(["webhook", "slack"]),
    url: z.string().check(z.minLength(1), z.maxLength(NOTIFICATION_LIMITS.urlLength, `must be at most ${NOTIFICATION_LIMITS.urlLength} characters`)),
    /** Absent: every event. */
    events: z.optional(z.array(NotificationEvent).check(z.minLength(1), z.maxLength(4))),
    /** Absent: every session; else these sessions and their descendants. */
    sessions: z.optional(z.array(Id).check(z.minLength(1), z.maxLength(NOTIFICATION_LIMITS.sessions))),
    /** A pending elicitation's `elicitation.reminder` comes this long after the request, then after each reminder. */
    remind_after_seconds: z.optional(z.int().check(z.minimum(NOTIFICATION_LIMITS.remindAfterSeconds.min), z.maximum(NOTIFICATION_LIMITS.remindAfterSeconds.max))),
    /** At most this many reminders per elicitation; absent: 3. Only with `remind_after_seconds`. */
    remind_times: z.optional(z.int().check(z.minimum(NOTIFICATION_LIMITS.remindTimes.min), z.maximum(NOTIFICATION_LIMITS.remindTimes.max))),
  })
  .check(z.refine((body) => body.remind_times === undefined || body.remind_after_seconds !== undefined, { path: ["remind_times"], message: "needs remind_after_seconds" }));
export type PutTargetBody = z.infer<typeof PutTargetBody>;

const Attempt = z.strictObject({ at: z.string(), event_id: z.string(), status: z.optional(z.int()), error: z.optional(z.string()) });

export const NotificationTarget = z.strictObject({
  target_id: Id,
  kind: z.enum(["webhook", "slack"]),
  url: z.string(),
  events: z.array(NotificationEvent),
  sessions: z.optional(z.array(Id)),
  remind_after_seconds: z.optional(z.int()),
  /** With `remind_after_seconds`: how many reminders an elicitation gets at most. */
  remind_times: z.optional(z.int()),
  created_at: z.string(),
  updated_at: z.string(),
  /** Set when deliveries kept failing: no event goes out until a PUT enables it again. */
  disabled_reason: z.optional(z.string()),
  /** The latest recorded delivery attempts, newest first: where each run of failures started and ended, otherwise about one a second (docs/notifications.md). */
  last_attempts: z.array(Attempt),
  /** The webhook signing secret: in the reply that created the target or rotated it, never again. */
  secret: z.optional(z.string()),
});
export type NotificationTarget = z.infer<typeof NotificationTarget>;

export const TargetList = z.strictObject({ targets: z.array(NotificationTarget) });
export const TargetDeleted = z.strictObject({ target_id: Id, deleted: z.literal(true) });
