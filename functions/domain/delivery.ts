/**
 * Verdict delivery with a claim (docs/data-model.md "How each guarantee is kept"): the claim `delivered_to` is written before the
 * push (on the fast path by the resolving transaction itself, elsewhere by `claim` here), so the
 * fast path, the stream safety net and a replay never send the same verdict twice to one
 * connection. A push to a dead connection releases the claim and forgets the connection: the
 * runner's `hello` with `resume` delivers it later.
 */
import type { Context } from "./context.js";
import { verdictFrame, type Resolved } from "./items.js";
export type VerdictFrame = ReturnType<typeof verdictFrame>;

export interface DeliveryOptions {
  /** Deliver to this connection rather than the bound one (resume, re-sent elicit, cancel). */
  connectionId?: string;
  /** A connection that asks for it (a resume, an elicit sent again) is sent the verdict, each time it asks. */
  again?: boolean;
}

export function createDelivery(ctx: Context, onGone: (tenant: string, connectionId: string) => Promise<void>) {
  const { elicitations } = ctx.db;

  /** Push a verdict whose delivery to `connectionId` this caller has claimed; a failed push releases the claim. */
  async function pushClaimed(item: Resolved, connectionId: string): Promise<VerdictFrame | undefined> {
    const frame = verdictFrame(item);
    let result: "sent" | "gone";
    try {
      result = await ctx.push.send(connectionId, frame);
    } catch (error) {
      await elicitations.releaseDelivery(item, connectionId, false);
      throw error;
    }
    if (result === "gone") {
      await elicitations.releaseDelivery(item, connectionId, true);
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
      if (!(await elicitations.claimDelivery(item, connectionId, options.again ?? false, ctx.iso()))) return undefined;
      return pushClaimed(item, connectionId);
    },
  };
}
export type Delivery = ReturnType<typeof createDelivery>;
