/**
 * What follows a change of the table (the streams handler's domain). Every reaction is safe to
 * repeat: a replayed or duplicated record finds the claim, the schedule or the missing row and
 * does nothing twice (DESIGN-NOTES 1).
 */
import type { Context } from "./context.js";
import type { Delivery } from "./delivery.js";
import type { Elicitations } from "./elicitations.js";
import { escalationKey, type Escalation } from "./escalation.js";
import { keys } from "./keys.js";
import { badgeEvent, isResolved, requestEvent, resolvedEvent, type ConnectionItem, type ElicitationItem, type SessionItem } from "./items.js";
import type { Connections } from "./connections.js";
import type { Messages } from "./messages.js";
import type { Audience } from "./subscriptions.js";

export interface Change {
  old?: Record<string, unknown>;
  new?: Record<string, unknown>;
}

export function createReactions(
  ctx: Context,
  parts: { elicitations: Elicitations; delivery: Delivery; escalation: Escalation; messages: Messages; connections: Connections },
) {
  const { elicitations, delivery, escalation, messages, connections } = parts;
  const sessionAndAncestors = (item: { session_id: string; ancestors?: string[] }) => [item.session_id, ...(item.ancestors ?? [])];

  async function scheduleDeadline(item: ElicitationItem) {
    const at = new Date(item.deadline);
    if (at.getTime() <= ctx.now()) return elicitations.expire(item.tenant, item.elicitation_id);
    await ctx.timers.schedule("deadline", `${item.tenant}-${item.elicitation_id}`, at, { tenant: item.tenant, elicitation_id: item.elicitation_id });
  }

  async function scheduleEscalation(item: ElicitationItem, from: number) {
    const at = new Date(from + ctx.config.escalationGraceSeconds * 1000);
    const round = item.block_round ?? 1;
    if (at.getTime() <= ctx.now()) return escalation.fire(item.tenant, item.elicitation_id, round);
    await ctx.timers.schedule("escalation", escalationKey(item), at, { tenant: item.tenant, elicitation_id: item.elicitation_id, round });
  }

  async function onRaised(item: ElicitationItem, audience: Audience) {
    await audience.publish(item.tenant, sessionAndAncestors(item), requestEvent(item));
    await scheduleDeadline(item);
    if (item.block_state === "armed") await scheduleEscalation(item, Date.parse(item.created_at));
  }

  async function onResolved(item: ElicitationItem, audience: Audience) {
    if (!isResolved(item)) return;
    await audience.publish(item.tenant, sessionAndAncestors(item), resolvedEvent(item));
    if (item.verdict.reason !== "timeout") await ctx.timers.cancel("deadline", `${item.tenant}-${item.elicitation_id}`);
    await escalation.settle(item);
  }

  async function elicitationChanged(before: ElicitationItem | undefined, after: ElicitationItem, audience: Audience) {
    if (!before && after.status === "pending") await onRaised(after, audience);
    if (before?.status === "pending" && after.status === "resolved") await onResolved(after, audience);
    // Safety net of the verdict fast path: resolved, bound, and nobody claimed its delivery.
    if (isResolved(after) && after.connection_id && !after.delivered_to) await delivery.deliverVerdict(after);
    if (before && before.block_state !== "armed" && after.block_state === "armed" && after.status === "pending") await scheduleEscalation(after, ctx.now());
  }

  /** The sparse pending index follows the count; the count itself moved in the resolving transaction. */
  async function dropFromPendingIndex(session: SessionItem) {
    await ctx.ops.updated({
      Key: keys.session(session.tenant, session.session_id),
      UpdateExpression: "REMOVE pending_pk",
      ConditionExpression: "pending_count <= :zero",
      ExpressionAttributeValues: { ":zero": 0 },
    });
  }

  async function sessionChanged(before: SessionItem | undefined, after: SessionItem, audience: Audience) {
    if ((before?.pending_count ?? 0) === after.pending_count) return;
    await audience.publish(after.tenant, sessionAndAncestors(after), badgeEvent(after));
    if (after.pending_count > 0) return;
    if (after.pending_pk) await dropFromPendingIndex(after);
    // The gate opened: held messages go out in order. A session no message ever joined has none to look for
    // (one appended after this image flushes itself: its sender finds the gate open).
    if (after.message_seq !== undefined) await messages.flush(after.tenant, after.session_id);
  }

  /** React to one change of a stream batch; `audience` publishes for the whole batch. */
  return async function react(change: Change, audience: Audience): Promise<void> {
    const after = change.new;
    if (!after) return;
    if (after.kind === "elicitation") return elicitationChanged(change.old as ElicitationItem | undefined, after as unknown as ElicitationItem, audience);
    if (after.kind === "session") return sessionChanged(change.old as SessionItem | undefined, after as unknown as SessionItem, audience);
    if (after.kind === "connection" && after.gone_at && !change.old?.gone_at) return connections.afterGone(after as unknown as ConnectionItem);
  };
}
