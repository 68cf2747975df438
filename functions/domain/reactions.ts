/**
 * What follows a change of the table (the streams handler's domain). Every reaction is safe to
 * repeat: a replayed or duplicated record finds the claim, the schedule or the missing row and
 * does nothing twice (docs/data-model.md "How each guarantee is kept").
 */
import type { Context } from "./context.js";
import type { Delivery } from "./delivery.js";
import type { Elicitations } from "./elicitations.js";
import type { Escalation } from "./escalation.js";
import { badgeEvent, isResolved, requestEvent, resolvedEvent, type ConnectionItem, type ElicitationItem, type SessionItem } from "./items.js";
import type { Connections } from "./connections.js";
import type { Messages } from "./messages.js";
import type { Deliveries } from "./notify/deliveries.js";
import type { Reminders } from "./notify/reminders.js";
import type { Runners } from "./runners.js";
import type { Audience } from "./subscriptions.js";
import { startTimer, timerKeys } from "./timers.js";

export interface Change {
  old?: Record<string, unknown>;
  new?: Record<string, unknown>;
}

export function createReactions(
  ctx: Context,
  parts: { elicitations: Elicitations; delivery: Delivery; escalation: Escalation; messages: Messages; connections: Connections; runners: Runners; notifications: Deliveries; reminders: Reminders },
) {
  const { elicitations, delivery, escalation, messages, connections, runners, notifications, reminders } = parts;
  const sessionAndAncestors = (item: { session_id: string; ancestors?: string[] }) => [item.session_id, ...(item.ancestors ?? [])];

  const start = (timer: Parameters<typeof startTimer>[2]) => startTimer(ctx.timers, ctx.now(), timer);

  async function scheduleDeadline(item: ElicitationItem) {
    const { tenant, elicitation_id } = item;
    await start({ timer: "deadline", key: timerKeys.deadline(item), at: new Date(item.deadline), input: { tenant, elicitation_id }, due: () => elicitations.expire(tenant, elicitation_id) });
  }

  async function scheduleEscalation(item: ElicitationItem, from: number) {
    const { tenant, elicitation_id } = item;
    const round = item.block_round ?? 1;
    const at = new Date(from + ctx.config.escalationGraceSeconds * 1000);
    await start({ timer: "escalation", key: timerKeys.escalation(item), at, input: { tenant, elicitation_id, round }, due: () => escalation.fire(tenant, elicitation_id, round) });
  }

  /** Its reconnect grace starts when the connection is gone; what it left pending resolves `runner_gone` when it ends. */
  async function connectionGone(item: ConnectionItem) {
    const at = await connections.afterGone(item);
    if (!at) return;
    const { tenant, connection_id } = item;
    await start({ timer: "runnerGone", key: timerKeys.runnerGone(tenant, connection_id), at, input: { tenant, connection_id }, due: () => runners.expireConnection(tenant, connection_id) });
  }

  async function onRaised(item: ElicitationItem, audience: Audience) {
    await audience.publish(item.tenant, sessionAndAncestors(item), requestEvent(item));
    await scheduleDeadline(item);
    if (item.block_state === "armed") await scheduleEscalation(item, Date.parse(item.created_at));
    await reminders.start(item, await notifications.requested(item));
  }

  async function onResolved(item: ElicitationItem, audience: Audience) {
    if (!isResolved(item)) return;
    const { answering_connection_id: answering, resolved_by } = item.verdict;
    await audience.publish(item.tenant, sessionAndAncestors(item), resolvedEvent(item), answering ? { connection_id: answering, sub: resolved_by } : undefined);
    if (item.verdict.reason !== "timeout") await ctx.timers.cancel("deadline", timerKeys.deadline(item));
    await escalation.settle(item);
    await notifications.resolved(item);
  }

  async function elicitationChanged(before: ElicitationItem | undefined, after: ElicitationItem, audience: Audience) {
    if (!before && after.status === "pending") await onRaised(after, audience);
    if (before?.status === "pending" && after.status === "resolved") await onResolved(after, audience);
    // Safety net of the verdict fast path: resolved, bound, and nobody claimed its delivery.
    if (isResolved(after) && after.connection_id && !after.delivered_to) await delivery.deliverVerdict(after);
    if (before && before.block_state !== "armed" && after.block_state === "armed" && after.status === "pending") await scheduleEscalation(after, ctx.now());
    // The escalation grace ran out: the block notice goes to the parent, and the targets hear of it.
    if (before?.block_state === "armed" && after.block_state === "delivering" && after.status === "pending") await notifications.escalated(after);
  }

  async function sessionChanged(before: SessionItem | undefined, after: SessionItem, audience: Audience) {
    if ((before?.pending_count ?? 0) === after.pending_count) return;
    await audience.publish(after.tenant, sessionAndAncestors(after), badgeEvent(after));
    if (after.pending_count > 0) return;
    // The gate opened: held messages go out in order. A session no message ever joined has none to look for
    // (one appended after this image flushes itself: its sender finds the gate open).
    if (after.message_seq !== undefined) await messages.flush(after.tenant, after.session_id);
  }

  /** React to one change of a stream batch; `audience` publishes for the whole batch. The kinds here are `streamItemKinds` (catalog.ts): the stream passes no others. */
  return async function react(change: Change, audience: Audience): Promise<void> {
    const after = change.new;
    if (!after) return;
    if (after.kind === "elicitation") return elicitationChanged(change.old as ElicitationItem | undefined, after as unknown as ElicitationItem, audience);
    if (after.kind === "session") return sessionChanged(change.old as SessionItem | undefined, after as unknown as SessionItem, audience);
    if (after.kind === "connection" && after.gone_at && !change.old?.gone_at) return connectionGone(after as unknown as ConnectionItem);
  };
}
