/**
 * Reminders of a pending elicitation (docs/notifications.md "Reminders"): a target that wants
 * `elicitation.reminder` and has `remind_after_seconds` hears of it again one interval after the
 * request and after each reminder, at most `remind_times` times, while it stays pending, and never
 * at or after its deadline. Each round is a one-time schedule of its own that re-reads the
 * elicitation and the target when it fires; the round's event id gives it one delivery item, so a
 * schedule fired twice sends one reminder.
 */
import { NOTIFICATION_LIMITS } from "../../shared/notification-schemas.js";
import type { Context } from "../context.js";
import type { ElicitationItem } from "../items.js";
import type { TargetItem } from "../stores/targets.js";
import { startTimer, timerKeys } from "../timers.js";
import { wants, type Deliveries } from "./deliveries.js";
import type { NotificationSubject } from "./payloads.js";

/** The most reminders a target sends of one elicitation. */
export const remindTimes = (target: Pick<TargetItem, "remind_times">) => target.remind_times ?? NOTIFICATION_LIMITS.remindTimes.default;

const reminder = (item: ElicitationItem, round: number): NotificationSubject => ({ type: "elicitation.reminder", eventId: `${item.elicitation_id}.reminder.${round}`, item });

/** The target reminds of this elicitation: it has an interval and wants reminders of the elicitation's session. */
const reminds = (target: TargetItem, item: ElicitationItem) => target.remind_after_seconds !== undefined && wants(target, reminder(item, 1));

export function createReminders(ctx: Context, deliveries: Deliveries) {
  const { targets, elicitations } = ctx.db;

  /** Round `round`, one interval after `from`: only while rounds remain and before the deadline. */
  async function scheduleRound(item: ElicitationItem, target: TargetItem, round: number, from: number) {
    const at = from + (target.remind_after_seconds ?? 0) * 1000;
    if (round > remindTimes(target) || at >= Date.parse(item.deadline)) return;
    const { tenant, elicitation_id } = item;
    const key = timerKeys.reminder(tenant, elicitation_id, target.target_id, round);
    const input = { tenant, elicitation_id, target_id: target.target_id, round };
    // A stream record read late may find the first round due already: it fires now.
    await startTimer(ctx.timers, ctx.now(), { timer: "reminder", key, at: new Date(at), input, due: () => fire(tenant, elicitation_id, target.target_id, round) });
  }

  /** One round: remind if the elicitation is still pending and the target still wants it, then schedule the next. */
  async function fire(tenant: string, elicitationId: string, targetId: string, round: number): Promise<void> {
    const item = await elicitations.get(tenant, elicitationId);
    if (item?.status !== "pending" || ctx.now() >= Date.parse(item.deadline)) return;
    const target = await targets.find(tenant, targetId);
    if (!target || !reminds(target, item) || round > remindTimes(target)) return;
    await deliveries.fanOut(reminder(item, round), [target]);
    await scheduleRound(item, target, round + 1, ctx.now());
  }

  return {
    /** A new elicitation: the first round for each of `among` (the tenant's targets) that reminds of it. Safe to repeat: the schedule's name. */
    async start(item: ElicitationItem, among: TargetItem[]): Promise<void> {
      for (const target of among.filter((t) => reminds(t, item))) await scheduleRound(item, target, 1, Date.parse(item.created_at));
    },
    fire,
  };
}
export type Reminders = ReturnType<typeof createReminders>;
