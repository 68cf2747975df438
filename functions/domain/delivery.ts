/**
 * Verdict delivery with a claim (DESIGN-NOTES 1, 2): the claim `delivered_to` is written before the
 * push (on the fast path by the resolving transaction itself, elsewhere by `claim` here), so the
 * fast path, the stream safety net and a replay never send the same verdict twice to one
 * connection. A push to a dead connection releases the claim and forgets the connection: the
 * runner's `hello` with `resume` delivers it later.
 */
import type { Context } from "./context.js";
import { keys } from "./keys.js";
import { verdictFrame, type ElicitationItem, type Verdict } from "./items.js";

type Resolved = ElicitationItem & { verdict: Verdict };
export type VerdictFrame = ReturnType<typeof verdictFrame>;

export interface DeliveryOptions {
  /** Deliver to this connection rather than the bound one (resume, re-sent elicit, cancel). */
  connectionId?: string;
  /** A connection that asks again may be sent the verdict again, once per connection. */
  again?: boolean;
}

export function createDelivery(ctx: Context, onGone: (tenant: string, connectionId: string) => Promise<void>) {
  const { ops } = ctx;

  async function claim(item: Resolved, connectionId: string, again: boolean): Promise<boolean> {
    return ops.updated({
      Key: keys.elicitation(item.tenant, item.elicitation_id),
      UpdateExpression: "SET delivered_to = :c, delivered_at = :now, connection_id = :c",
      ConditionExpression: again
        ? "#s = :resolved AND (attribute_not_exists(delivered_to) OR delivered_to <> :c)"
        : "#s = :resolved AND attribute_not_exists(delivered_to)",
      ExpressionAttributeNames: { "#s": "status" },
      ExpressionAttributeValues: { ":c": connectionId, ":now": ctx.iso(), ":resolved": "resolved" },
    });
  }

  /** Undo a claim whose push failed; `forget` also drops the dead connection. */
  async function release(item: Resolved, connectionId: string, forget: boolean): Promise<void> {
    await ops.updated({
      Key: keys.elicitation(item.tenant, item.elicitation_id),
      UpdateExpression: forget ? "REMOVE delivered_to, delivered_at, connection_id" : "REMOVE delivered_to, delivered_at",
      ConditionExpression: "delivered_to = :c",
      ExpressionAttributeValues: { ":c": connectionId },
    });
  }

  /** Push a verdict whose delivery to `connectionId` this caller has claimed; a failed push releases the claim. */
  async function pushClaimed(item: Resolved, connectionId: string): Promise<VerdictFrame | undefined> {
    const frame = verdictFrame(item);
    let result: "sent" | "gone";
    try {
      result = await ctx.push.send(connectionId, frame);
    } catch (error) {
      await release(item, connectionId, false);
      throw error;
    }
    if (result === "gone") {
      await release(item, connectionId, true);
      await onGone(item.tenant, connectionId);
      return undefined;
    }
    return frame;
  }

  return {
    pushClaimed,

    async deliverVerdict(item: Resolved, options: DeliveryOptions = {}): Promise<VerdictFrame | undefined> {
      const connectionId = options.connectionId ?? item.connection_id;
      if (!connectionId) return undefined;
      if (!(await claim(item, connectionId, options.again ?? false))) return undefined;
      return pushClaimed(item, connectionId);
    },
  };
}
export type Delivery = ReturnType<typeof createDelivery>;
