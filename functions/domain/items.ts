/** The shapes of the table's items and of the events built from them (docs/protocol.md "Events (as stored, replayed and pushed)"). */
import type { ElicitationParams, Role, VerdictAction, Via } from "../shared/schemas.js";

export type { Caller, Connection } from "../shared/caller.js";

export type Reason = "answered" | "timeout" | "cancelled" | "runner_gone";

/** The `resolved_by` of what Tollgate resolves itself: a deadline that passed, a runner that did not come back. */
export const TOLLGATE = "tollgate";

export interface Verdict {
  action: VerdictAction;
  content?: Record<string, unknown>;
  /** What the human said with it. */
  message?: string;
  reason: Reason;
  resolved_by: string;
  resolved_at: string;
  /** How it came; absent on verdicts stored before it was kept (`viaOf` derives it). */
  via?: Via;
  /** The resolver's own subscribed connection that gave it: its resolved event is not pushed there (the reply said it). */
  answering_connection_id?: string;
}

export interface SessionItem {
  pk: string;
  sk: "SESSION";
  kind: "session";
  tenant: string;
  session_id: string;
  parent_session_id?: string;
  /** Root first, parent last. */
  ancestors: string[];
  title?: string;
  owner_sub: string;
  pending_count: number;
  /** The ids of its own pending elicitations, changed with `pending_count` in the same writes (absent when none). */
  pending_ids?: Set<string>;
  runner_connection_id?: string;
  message_seq?: number;
  flush_lease?: number;
  created_at: string;
  updated_at: string;
  tenant_pk: string;
  session_sk: string;
  pending_pk?: string;
}

/**
 * Escalation state of one block (docs/protocol.md "Lifecycle rules" 4): armed at raise in a child session; delivering
 * while the block notice is on its way; delivered (pushed) or queued (parent offline, `notice_seq`);
 * released when every attempt failed (a re-publish re-arms); cleared when it resolved in time;
 * settled once the resolution notice went out or the queued notice was withdrawn.
 */
export type BlockState = "armed" | "delivering" | "delivered" | "queued" | "released" | "cleared" | "settled";

export interface ElicitationItem {
  pk: string;
  sk: "ELICITATION";
  kind: "elicitation";
  tenant: string;
  elicitation_id: string;
  session_id: string;
  ancestors: string[];
  owner_sub: string;
  /** The params as the runner sent them: JSON text, since DynamoDB maps do not keep key order (form fields do). */
  params_json: string;
  params_hash: string;
  created_at: string;
  deadline: string;
  status: "pending" | "resolved";
  connection_id?: string;
  /** When the bound connection was opened: a frame from an older connection, processed late, cannot take the binding back. */
  bound_at?: number;
  verdict?: Verdict;
  delivered_to?: string;
  block_state?: BlockState;
  block_round?: number;
  notice_seq?: number;
  expires_at?: number;
  /** Listed in its session's `pending_ids`; absent on one with a `P#` row under its session instead (raised past the item's eighth, or before sessions listed theirs). */
  listed_on_session?: true;
}

export type Resolved = ElicitationItem & { verdict: Verdict };

export interface ConnectionItem {
  pk: string;
  sk: "CONNECTION";
  kind: "connection";
  tenant: string;
  connection_id: string;
  sub: string;
  role: Role;
  sessions?: Set<string>;
  gone_at?: string;
  expires_at: number;
}

export interface MessageItem {
  pk: string;
  sk: string;
  kind: "message";
  tenant: string;
  session_id: string;
  seq: number;
  message_id: string;
  message_kind: "message" | "notice";
  text: string;
  from_session_id?: string;
  /** The block whose notice this is: lets a resolution withdraw it while still queued. */
  notice_for?: string;
  claimed_at?: number;
  created_at: string;
}

/** A pending elicitation's row under an ancestor (`D#`), or under its own session (`P#`, one its session's item does not list). */
export interface PendingRow {
  pk: string;
  sk: string;
  kind: "pending" | "descendant";
  elicitation_id: string;
  /** The request event as JSON text (key order kept). */
  event_json: string;
}

export const paramsOf = (item: Pick<ElicitationItem, "params_json">): ElicitationParams => JSON.parse(item.params_json);
export const eventOf = (row: PendingRow): RequestEvent => JSON.parse(row.event_json);

export function requestEvent(item: Pick<ElicitationItem, "elicitation_id" | "session_id" | "params_json" | "created_at" | "deadline">) {
  return {
    type: "response.elicitation_request" as const,
    elicitation_id: item.elicitation_id,
    session_id: item.session_id,
    params: paramsOf(item),
    created_at: item.created_at,
    deadline: item.deadline,
  };
}
export type RequestEvent = ReturnType<typeof requestEvent>;

/** The verdict as replies show it (`GET /v1/elicitations/{id}`, a conflict's standing verdict). */
export function shownVerdict(verdict: Verdict) {
  const { action, content, message, reason, resolved_by, resolved_at } = verdict;
  return { action, ...(content !== undefined ? { content } : {}), ...(message !== undefined ? { message } : {}), reason, resolved_by, resolved_at };
}

/** How a verdict came, for one stored before `via` was kept: a human's token, the deadline, or the runner's side. */
export const viaOf = (verdict: Pick<Verdict, "reason" | "via">): Via => verdict.via ?? (verdict.reason === "answered" ? "token" : verdict.reason === "timeout" ? "deadline" : "runner");

/** How it resolved, as the resolved event and the answering call's reply both say it. */
export function outcomeOf(item: Resolved) {
  const { action, message, reason, resolved_by, resolved_at } = item.verdict;
  return { elicitation_id: item.elicitation_id, action, ...(message !== undefined ? { message } : {}), reason, resolved_by, resolved_at };
}

export function resolvedEvent(item: Resolved) {
  return { type: "response.elicitation_resolved" as const, session_id: item.session_id, ...outcomeOf(item) };
}

export function verdictFrame(item: Resolved) {
  const { action, content, message, reason, resolved_by } = item.verdict;
  return {
    type: "elicitation.verdict" as const,
    elicitation_id: item.elicitation_id,
    session_id: item.session_id,
    action,
    content,
    ...(message !== undefined ? { message } : {}),
    reason,
    resolved_by,
  };
}

export function badgeEvent(session: Pick<SessionItem, "session_id" | "pending_count">) {
  return { type: "session.badge" as const, session_id: session.session_id, pending_elicitations_count: Math.max(0, session.pending_count) };
}

export function isResolved(item: ElicitationItem): item is Resolved {
  return item.status === "resolved" && item.verdict !== undefined;
}
