/**
 * The elicitation lifecycle: raise, and resolve exactly once (docs/protocol.md "Lifecycle rules" 1, 2, 3, 7).
 * Raise and resolve are each one transaction over the elicitation, its mirror rows under every
 * ancestor (docs/data-model.md "Items") and the session's badge count with its list of pending ids,
 * so the count can never drift from what it counts.
 */
import { randomUUID } from "node:crypto";
import { ProtocolError, badRequest, notFound } from "../shared/errors.js";
import { LIMITS, type ElicitationParams, type VerdictAction, type Via } from "../shared/schemas.js";
import { requireOwner, requireRole } from "./access.js";
import { canonicalJson, hashOf } from "./canonical.js";
import { checkAcceptedContent } from "./content.js";
import type { Context } from "./context.js";
import type { Delivery, VerdictFrame } from "./delivery.js";
import {
  TOLLGATE,
  isResolved,
  outcomeOf,
  paramsOf,
  requestEvent,
  shownVerdict,
  verdictFrame,
  viaOf,
  type Caller,
  type Connection,
  type ElicitationItem,
  type Reason,
  type Resolved,
  type Verdict,
} from "./items.js";
import type { RateCharge, RateLimiter } from "./rate-limit.js";
import type { Sessions } from "./sessions.js";
import type { NewElicitation } from "./stores/elicitations.js";

export interface RaiseInput {
  session_id: string;
  elicitation_id?: string;
  params: ElicitationParams;
  timeout_seconds?: number;
}

export interface Resolution {
  tenant: string;
  elicitation_id: string;
  action: VerdictAction;
  content?: Record<string, unknown>;
  /** What the human said with the verdict. */
  message?: string;
  reason: Reason;
  resolved_by: string;
  /** How the verdict came, when not what the reason implies (an approval link). */
  via?: Via;
  /** Only if it belongs to this session (HTTP calls name the session in the path). */
  session_id?: string;
  /** Only if still bound to this connection (runner gone). */
  bound_to?: string;
  /** Bind it to this connection as it resolves and claim its delivery there: the verdict goes out as the reply (runner cancel). */
  reply_to?: string;
  /** Count the call against its caller's rate limit, in the resolving write. */
  charge?: RateCharge;
  /** The resolver's connection that hears the outcome in its reply, not as a resolved event. */
  answering_connection_id?: string;
}

/** A rebind between our read and our write fails the claim's condition: read again, at most this often, then claim separately. */
const CLAIM_ATTEMPTS = 2;

/** A verdict as a human (or service) gives it; `via` is `token` unless said otherwise. */
export interface Answer {
  elicitation_id: string;
  action: VerdictAction;
  content?: Record<string, unknown>;
  message?: string;
  via?: Via;
  answering_connection_id?: string;
}

/** The same verdict again: the same action, content and message. */
const sameVerdict = (standing: Verdict, given: Answer) =>
  standing.action === given.action && canonicalJson(standing.content ?? null) === canonicalJson(given.content ?? null) && (standing.message ?? null) === (given.message ?? null);

export function createElicitations(ctx: Context, sessions: Sessions, delivery: Delivery, limiter?: RateLimiter) {
  const { elicitations: store, sessions: sessionStore } = ctx.db;
  const find = store.get;

  async function findOwned(caller: Caller, elicitationId: string, sessionId?: string): Promise<ElicitationItem> {
    const item = await find(caller.tenant, elicitationId);
    if (!item || (sessionId !== undefined && item.session_id !== sessionId)) throw notFound("elicitation");
    requireOwner(caller, item);
    return item;
  }

  /**
   * A runner that (re)attaches to an elicitation: bind it if pending, or hand it the verdict now.
   * Returns the verdict frame when it goes out as a direct reply.
   */
  async function attach(item: ElicitationItem, connection: Connection) {
    if (item.status === "pending" && (await store.bind(item, connection))) return undefined;
    const current = item.status === "pending" ? await find(item.tenant, item.elicitation_id) : item;
    if (current && isResolved(current)) return delivery.deliverVerdict(current, { connectionId: connection.id, again: true });
    return undefined;
  }

  /** The same id again: the same params in the same session answer the same; anything else is a conflict. */
  async function republish(caller: Caller, input: RaiseInput & { elicitation_id: string }, connection?: Connection) {
    const existing = await find(caller.tenant, input.elicitation_id);
    if (!existing) throw new ProtocolError("conflict", "elicitation id is being created concurrently");
    if (existing.session_id !== input.session_id) throw new ProtocolError("conflict", "this elicitation id exists in another session");
    if (existing.params_hash !== hashOf(input.params)) throw new ProtocolError("conflict", "this elicitation id exists with other params");
    requireOwner(caller, existing);
    // A re-publish after a failed notice delivery arms the block again (docs/protocol.md "Lifecycle rules" 4).
    if (existing.status === "pending" && existing.block_state === "released") await store.rearm(existing);
    if (connection) await attach(existing, connection);
    return { created: false, elicitation_id: existing.elicitation_id, deadline: existing.deadline, session_runner: undefined as string | undefined };
  }

  /**
   * `listed`: the session's item lists the new id (docs/data-model.md); false once the item lists its
   * most already, and the elicitation then has a row under its session instead.
   */
  async function raise(caller: Caller, input: RaiseInput, connection?: Connection, listed = true) {
    requireRole(caller, "raise");
    if (Buffer.byteLength(JSON.stringify(input.params)) > LIMITS.paramsBytes) throw new ProtocolError("payload_too_large", "params are larger than 24 KiB");
    const { lineage: session, item: read } = await sessions.lineage(caller.tenant, input.session_id);
    requireOwner(caller, session);
    const elicitationId = input.elicitation_id ?? `elicit_${randomUUID()}`;
    const now = ctx.now();
    const createdAt = new Date(now).toISOString();
    const timeout = input.timeout_seconds ?? LIMITS.timeoutSeconds.default;
    const item: NewElicitation = {
      tenant: caller.tenant,
      elicitation_id: elicitationId,
      session_id: session.session_id,
      ancestors: session.ancestors,
      owner_sub: session.owner_sub,
      params_json: JSON.stringify(input.params),
      params_hash: hashOf(input.params),
      created_at: createdAt,
      deadline: new Date(now + timeout * 1000).toISOString(),
      status: "pending",
      connection_id: connection?.id,
      bound_at: connection?.connectedAt,
      ...(session.parent_session_id ? { block_state: "armed" as const, block_round: 1 } : {}),
    };
    const charge = limiter?.charge(caller, "raise");
    // Raised over a connection, the session's runner becomes that connection in the same write as its count.
    const count = sessionStore.countUp({ tenant: caller.tenant, sessionId: session.session_id, elicitationId, at: createdAt, runner: connection?.id, listed });
    const writes = [...store.raise(item, JSON.stringify(requestEvent(item)), listed), count, ...(charge ? [charge.write] : [])];
    const lost = await ctx.db.transact(writes);
    if (!lost) return { created: true, elicitation_id: elicitationId, deadline: item.deadline, session_runner: read?.runner_connection_id };
    if (lost.has(writes.indexOf(count))) {
      // The session is gone, or its item lists its most pending ids already: then a row of its own.
      if (listed && (await sessionStore.get(caller.tenant, session.session_id))) return raise(caller, { ...input, elicitation_id: elicitationId }, connection, false);
      sessions.forget(caller.tenant, session.session_id);
      throw notFound("session");
    }
    // An id that exists is a re-publish, which counts nothing; otherwise the count may be what refused it.
    const refused = lost.has(0) ? undefined : charge?.refusal(lost, writes.length - 1);
    if (refused) throw refused;
    return republish(caller, { ...input, elicitation_id: elicitationId }, connection);
  }

  /**
   * Resolve once. Returns the item as it stands and whether this call was the one that resolved it.
   * `known` is the item as the caller just read it (consistently), which spares a second read.
   */
  async function resolve(r: Resolution, known?: ElicitationItem, attempt = 0): Promise<{ won: boolean; item: ElicitationItem; frame?: VerdictFrame }> {
    const item = known ?? (await find(r.tenant, r.elicitation_id));
    if (!item || (r.session_id !== undefined && item.session_id !== r.session_id)) throw notFound("elicitation");
    if (isResolved(item)) return { won: false, item };
    const verdict: Verdict = {
      action: r.action,
      ...(r.content !== undefined ? { content: r.content } : {}),
      ...(r.message !== undefined ? { message: r.message } : {}),
      reason: r.reason,
      resolved_by: r.resolved_by,
      resolved_at: ctx.iso(),
      via: r.via ?? viaOf({ reason: r.reason }),
      ...(r.answering_connection_id !== undefined ? { answering_connection_id: r.answering_connection_id } : {}),
    };
    // Runner gone: only while still bound to the gone connection (a resume rebound it otherwise).
    if (r.bound_to !== undefined && item.connection_id !== r.bound_to) return { won: false, item };
    // Bound to a runner: claim its delivery in this write, on condition the binding still holds (docs/data-model.md, verdict delivery).
    const claim = !r.reply_to && item.connection_id && attempt < CLAIM_ATTEMPTS ? item.connection_id : undefined;
    const writes = [
      ...store.resolve(item, verdict, r.reply_to ? { reply: r.reply_to } : claim ? { bound: claim } : undefined, {
        at: verdict.resolved_at,
        // Counted from the resolution itself, so the history hides it exactly when its retention has passed.
        expiresAt: Math.floor(Date.parse(verdict.resolved_at) / 1000) + ctx.config.resolvedRetentionSeconds,
        history: ctx.config.keepsHistory,
      }),
      sessionStore.countDown(r.tenant, item.session_id, item.elicitation_id, verdict.resolved_at),
      ...(r.charge ? [r.charge.write] : []),
    ];
    const lost = await ctx.db.transact(writes);
    if (lost) {
      // Resolved meanwhile: the standing verdict answers, and nothing is counted. Still pending: the count refused it.
      const refused = lost.has(0) ? undefined : r.charge?.refusal(lost, writes.length - 1);
      if (refused) throw refused;
      // Another path resolved it first, or (runner gone) a resume rebound it meanwhile.
      const current = (await find(r.tenant, r.elicitation_id)) ?? item;
      // Still pending: only our claim's binding moved (a resume or a re-sent elicit). Resolve with the binding as it stands.
      if (claim && r.bound_to === undefined && current.status === "pending") return resolve(r, current, attempt + 1);
      return { won: false, item: current };
    }
    const resolved: Resolved = { ...item, status: "resolved", verdict, ...(claim ? { delivered_to: claim } : {}) };
    if (r.reply_to) return { won: true, item: resolved, frame: verdictFrame(resolved) };
    await fastPath(resolved, claim);
    return { won: true, item: resolved };
  }

  /** Push the verdict right after the write; the streams handler delivers whatever this misses. */
  async function fastPath(item: Resolved, claimed: string | undefined): Promise<void> {
    try {
      if (claimed) await delivery.pushClaimed(item, claimed);
      else await delivery.deliverVerdict(item);
    } catch {
      // The claim was released: the stream's safety net retries this delivery.
    }
  }

  return {
    find,
    raise: (caller: Caller, input: RaiseInput, connection?: Connection) => raise(caller, input, connection),
    resolve,
    attach,

    /** A human's (or service's) verdict. */
    async answer(caller: Caller, sessionId: string, input: Answer) {
      requireRole(caller, "answer");
      const item = await find(caller.tenant, input.elicitation_id);
      if (!item || item.session_id !== sessionId) throw notFound("elicitation");
      if (input.content !== undefined && input.action !== "accept") throw badRequest("content comes only with accept");
      if (item.status === "pending" && input.action === "accept") checkAcceptedContent(paramsOf(item), input.content);
      const { item: standing } = await resolve(
        {
          tenant: caller.tenant,
          elicitation_id: input.elicitation_id,
          session_id: sessionId,
          action: input.action,
          content: input.content,
          message: input.message,
          reason: "answered",
          resolved_by: caller.sub,
          via: input.via,
          answering_connection_id: input.answering_connection_id,
          charge: limiter?.charge(caller, "verdict"),
        },
        item,
      );
      if (!isResolved(standing)) throw new ProtocolError("conflict", "this elicitation changed meanwhile; try again");
      if (!sameVerdict(standing.verdict, input)) {
        throw new ProtocolError("conflict", "this elicitation is already resolved with another verdict", { verdict: shownVerdict(standing.verdict) });
      }
      return { ...outcomeOf(standing), status: "resolved" as const };
    },

    /** The runner stopped waiting (HTTP `response.elicitation_resolved`), or cancelled over its socket. */
    async cancel(caller: Caller, elicitationId: string, options: { session_id?: string; reply_to?: string } = {}) {
      requireRole(caller, "cancel");
      const item = await findOwned(caller, elicitationId, options.session_id);
      return resolve({ tenant: caller.tenant, elicitation_id: elicitationId, action: "cancel", reason: "cancelled", resolved_by: caller.sub, ...options }, item);
    },

    /** The standalone approval page's read. */
    async read(caller: Caller, elicitationId: string) {
      requireRole(caller, "read");
      const item = await find(caller.tenant, elicitationId);
      if (!item) throw notFound("elicitation");
      return { session_id: item.session_id, status: item.status, event: requestEvent(item), ...(item.verdict ? { verdict: shownVerdict(item.verdict) } : {}) };
    },

    /** Scheduler fired the deadline: silence means decline (docs/protocol.md "Lifecycle rules" 1). */
    async expire(tenant: string, elicitationId: string) {
      const item = await find(tenant, elicitationId);
      if (item?.status !== "pending") return;
      await resolve({ tenant, elicitation_id: elicitationId, action: "decline", reason: "timeout", resolved_by: TOLLGATE }, item);
    },
  };
}
export type Elicitations = ReturnType<typeof createElicitations>;
