/**
 * Messages and notices for a session's runner (PROTOCOL rule 6): every message joins the session's
 * queue in arrival order; a flush delivers what the gate lets through, one flusher at a time (a
 * lease on the session), each row claimed before its push and deleted after it.
 */
import { randomUUID } from "node:crypto";
import { DeleteCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { notFound } from "../shared/errors.js";
import type { Context } from "./context.js";
import { keys } from "./keys.js";
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
  const { db, table, ops } = ctx;

  async function append(tenant: string, sessionId: string, m: Outgoing): Promise<MessageItem> {
    const session = await ops.updateIf<SessionItem>({
      Key: keys.session(tenant, sessionId),
      UpdateExpression: "ADD message_seq :one",
      ConditionExpression: "attribute_exists(pk)",
      ExpressionAttributeValues: { ":one": 1 },
    });
    if (!session) throw notFound("session");
    const seq = session.message_seq!;
    const row: MessageItem = {
      ...keys.message(tenant, sessionId, seq),
      kind: "message",
      tenant,
      session_id: sessionId,
      seq,
      message_id: `msg_${randomUUID()}`,
      message_kind: m.kind,
      text: m.text,
      from_session_id: m.from_session_id,
      notice_for: m.notice_for,
      created_at: ctx.iso(),
    };
    await db.send(new PutCommand({ TableName: table, Item: row }));
    return row;
  }

  /** Take the session's flush lease: the session as it stands then, or undefined while another flusher holds it. */
  const lease = (tenant: string, sessionId: string, until: number) =>
    ops.updateIf<SessionItem>({
      Key: keys.session(tenant, sessionId),
      UpdateExpression: "SET flush_lease = :until",
      ConditionExpression: "attribute_exists(pk) AND (attribute_not_exists(flush_lease) OR flush_lease < :now)",
      ExpressionAttributeValues: { ":until": until, ":now": ctx.now() },
    });

  const unlease = (tenant: string, sessionId: string, until: number) =>
    ops.updated({
      Key: keys.session(tenant, sessionId),
      UpdateExpression: "REMOVE flush_lease",
      ConditionExpression: "flush_lease = :until",
      ExpressionAttributeValues: { ":until": until },
    });

  const claim = (row: MessageItem) =>
    ops.updated({
      Key: { pk: row.pk, sk: row.sk },
      UpdateExpression: "SET claimed_at = :now",
      ConditionExpression: "attribute_exists(pk) AND (attribute_not_exists(claimed_at) OR claimed_at < :stale)",
      ExpressionAttributeValues: { ":now": ctx.now(), ":stale": ctx.now() - STALE_CLAIM_MS },
    });

  const unclaim = (row: MessageItem) => ops.updated({ Key: { pk: row.pk, sk: row.sk }, UpdateExpression: "REMOVE claimed_at", ConditionExpression: "attribute_exists(pk)" });

  /** One pass under the lease over the rows looked at; false when the runner turned out to be gone. */
  async function deliverQueued(tenant: string, rows: MessageItem[], session: SessionItem): Promise<boolean> {
    const connectionId = session.runner_connection_id;
    if (!connectionId) return true;
    const gated = session.pending_count > 0;
    for (const row of rows) {
      if (row.message_kind === "message" && gated) continue;
      if (!(await claim(row))) continue; // withdrawn or delivered meanwhile
      if ((await ctx.push.send(connectionId, messageFrame(row))) === "gone") {
        await unclaim(row);
        await onGone(tenant, connectionId);
        return false;
      }
      await db.send(new DeleteCommand({ TableName: table, Key: { pk: row.pk, sk: row.sk } }));
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
      const rows = await ops.queryPrefix<MessageItem>(keys.sessionPartition(tenant, sessionId), keys.prefix.message);
      if (rows.length === 0) return; // the common case: nothing queued, no lease to take
      const seen = await ops.get<SessionItem>(keys.session(tenant, sessionId));
      if (!seen?.runner_connection_id || !rows.some((row) => row.message_kind === "notice" || seen.pending_count <= 0)) return;
      const until = ctx.now() + LEASE_MS;
      // The gate and the runner are judged again as the lease finds them, not as seen before it:
      // an approval raised in between must still hold the messages.
      const session = await lease(tenant, sessionId, until);
      if (!session) {
        await ctx.sleep(20);
        continue;
      }
      let alive: boolean;
      try {
        alive = await deliverQueued(tenant, rows, session);
      } finally {
        await unlease(tenant, sessionId, until);
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
      const stillQueued = await ops.get<MessageItem>({ pk: row.pk, sk: row.sk });
      if (!stillQueued) return { status: "delivered" as const, message_id: row.message_id };
      const session = await ops.get<SessionItem>(keys.session(tenant, sessionId));
      return { status: (session && session.pending_count > 0 ? "held" : "queued") as "held" | "queued", message_id: row.message_id };
    },

    /** A notice: pushed at once when the runner is there, else queued (notices pass the gate). */
    async notify(tenant: string, sessionId: string, m: Outgoing): Promise<{ via: "pushed" } | { via: "queued"; seq: number }> {
      const session = await ops.get<SessionItem>(keys.session(tenant, sessionId));
      if (!session) throw notFound("session");
      if (session.runner_connection_id) {
        const frame = messageFrame({ session_id: sessionId, message_id: `msg_${randomUUID()}`, message_kind: "notice", text: m.text });
        if ((await ctx.push.send(session.runner_connection_id, frame)) === "sent") return { via: "pushed" };
        await onGone(tenant, session.runner_connection_id);
      }
      return { via: "queued", seq: (await append(tenant, sessionId, m)).seq };
    },

    /** Take back a notice that still waits in the queue; false when it was already on its way. */
    withdraw: (tenant: string, sessionId: string, seq: number) =>
      ops.deleteIf({ Key: keys.message(tenant, sessionId, seq), ConditionExpression: "attribute_exists(pk) AND attribute_not_exists(claimed_at)" }),
  };
}
export type Messages = ReturnType<typeof createMessages>;
