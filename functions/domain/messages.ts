/**
 * Messages and notices for a session's runner (docs/protocol.md "Lifecycle rules" 6): every message joins the session's
 * queue in arrival order; a flush delivers what the gate lets through, one flusher at a time (a
 * lease on the session), each row claimed before its push and deleted after it.
 */
import { randomUUID } from "node:crypto";
import { notFound } from "../shared/errors.js";
import type { Context } from "./context.js";
import type { MessageItem, SessionItem } from "./items.js";

const LEASE_MS = 30_000;
/** A claim older than this belongs to a flusher that died: its row is delivered again. */
const STALE_CLAIM_MS = 30_000;

export interface Outgoing {
  text: string;
  kind: "message" | "notice";
  from_session_id?: string;
  notice_for?: string;
}

export function messageFrame(row: Pick<MessageItem, "session_id" | "message_id" | "message_kind" | "text" | "from_session_id">) {
  return {
    type: "session.message" as const,
    session_id: row.session_id,
    message_id: row.message_id,
    kind: row.message_kind,
    text: row.text,
    ...(row.from_session_id ? { from_session_id: row.from_session_id } : {}),
  };
}

export function createMessages(ctx: Context, onGone: (tenant: string, connectionId: string) => Promise<void>) {
  const { sessions, messages: queue } = ctx.db;

  async function append(tenant: string, sessionId: string, m: Outgoing): Promise<MessageItem> {
    const session = await sessions.nextMessageSeq(tenant, sessionId);
    if (!session) throw notFound("session");
    return queue.append({
      tenant,
      session_id: sessionId,
      seq: session.message_seq!,
      message_id: `msg_${randomUUID()}`,
      message_kind: m.kind,
      text: m.text,
      from_session_id: m.from_session_id,
      notice_for: m.notice_for,
      created_at: ctx.iso(),
    });
  }

  /** One pass under the lease over the rows looked at; false when the runner turned out to be gone. */
  async function deliverQueued(tenant: string, rows: MessageItem[], session: SessionItem): Promise<boolean> {
    const connectionId = session.runner_connection_id;
    if (!connectionId) return true;
    const gated = session.pending_count > 0;
    for (const row of rows) {
      if (row.message_kind === "message" && gated) continue;
      const now = ctx.now();
      if (!(await queue.claim(row, now, now - STALE_CLAIM_MS))) continue; // withdrawn or delivered meanwhile
      if ((await ctx.push.send(connectionId, messageFrame(row))) === "gone") {
        await queue.unclaim(row);
        await onGone(tenant, connectionId);
        return false;
      }
      await queue.delivered(row);
    }
    return true;
  }

  /**
   * Deliver what may go now: look (rows, then the session), take the lease, deliver what was looked
   * at, and look again, until nothing more may go. A busy lease means another flusher is at it: look
   * again shortly.
   */
  async function flush(tenant: string, sessionId: string): Promise<void> {
    for (let attempt = 0; attempt < 50; attempt++) {
      // Rows first, then the session: every row read was queued before the gate was looked at.
      const rows = await queue.queued(tenant, sessionId);
      if (rows.length === 0) return; // the common case: nothing queued, no lease to take
      const seen = await sessions.get(tenant, sessionId);
      if (!seen?.runner_connection_id || !rows.some((row) => row.message_kind === "notice" || seen.pending_count <= 0)) return;
      const until = ctx.now() + LEASE_MS;
      // The gate and the runner are judged again as the lease finds them, not as seen before it:
      // an approval raised in between must still hold the messages.
      const session = await sessions.lease(tenant, sessionId, until, ctx.now());
      if (!session) {
        await ctx.sleep(20);
        continue;
      }
      let alive: boolean;
      try {
        alive = await deliverQueued(tenant, rows, session);
      } finally {
        await sessions.unlease(tenant, sessionId, until);
      }
      if (!alive) return;
    }
  }

  return {
    append,
    flush,

    /** Queue a message and flush: `delivered`, `held` behind a pending approval, or `queued` for the next `hello`. */
    async send(tenant: string, sessionId: string, m: Outgoing) {
      const row = await append(tenant, sessionId, m);
      await flush(tenant, sessionId);
      if (!(await queue.stillQueued(row))) return { status: "delivered" as const, message_id: row.message_id };
      const session = await sessions.get(tenant, sessionId);
      return { status: (session && session.pending_count > 0 ? "held" : "queued") as "held" | "queued", message_id: row.message_id };
    },

    /** A notice: pushed at once when the runner is there, else queued (notices pass the gate). */
    async notify(tenant: string, sessionId: string, m: Outgoing): Promise<{ via: "pushed" } | { via: "queued"; seq: number }> {
      const session = await sessions.get(tenant, sessionId);
      if (!session) throw notFound("session");
      if (session.runner_connection_id) {
        const frame = messageFrame({ session_id: sessionId, message_id: `msg_${randomUUID()}`, message_kind: "notice", text: m.text });
        if ((await ctx.push.send(session.runner_connection_id, frame)) === "sent") return { via: "pushed" };
        await onGone(tenant, session.runner_connection_id);
      }
      return { via: "queued", seq: (await append(tenant, sessionId, m)).seq };
    },

    /** Take back a notice that still waits in the queue; false when it was already on its way. */
    withdraw: queue.withdraw,
  };
}
export type Messages = ReturnType<typeof createMessages>;
