/**
 * Zod schemas of what Tollgate sends: HTTP reply bodies, stored events and server WebSocket frames
 * (docs/protocol.md "HTTP API", "Events", "WebSocket API"). The OpenAPI description is generated
 * from these and from the request schemas in schemas.ts; test/openapi.test.ts checks real replies
 * against it, so a reply that drifts from them fails there.
 */
import * as z from "./zod.js";
import { errorStatus } from "./errors.js";
import { Count, ElicitationParams, Id, LIMITS, Ref, VerdictAction, VerdictMessage, Via } from "./schemas.js";

const Timestamp = z.iso.datetime();

export const Reason = z.enum(["answered", "timeout", "cancelled", "runner_gone"]);
export const VerdictContent = z.record(z.string(), z.unknown());

export const Verdict = z.strictObject({
  action: VerdictAction,
  content: z.optional(VerdictContent),
  /** What the human said with it. */
  message: z.optional(VerdictMessage),
  reason: Reason,
  resolved_by: z.string(),
  resolved_at: Timestamp,
});

export const RequestEventRecord = z.strictObject({
  type: z.literal("response.elicitation_request"),
  elicitation_id: Id,
  session_id: Id,
  params: ElicitationParams,
  created_at: Timestamp,
  deadline: Timestamp,
});
export const ResolvedEventRecord = z.strictObject({
  type: z.literal("response.elicitation_resolved"),
  elicitation_id: Id,
  session_id: Id,
  action: VerdictAction,
  message: z.optional(VerdictMessage),
  reason: Reason,
  resolved_by: z.string(),
  resolved_at: Timestamp,
});
export const BadgeEvent = z.strictObject({ type: z.literal("session.badge"), session_id: Id, pending_elicitations_count: Count });

// ---- HTTP replies ----
export const Health = z.strictObject({ ok: z.literal(true) });

export const SessionSummary = z.strictObject({
  session_id: Id,
  parent_session_id: z.nullable(Id),
  title: z.nullable(z.string()),
  pending_elicitations_count: Count,
  /** The ids of its own pending elicitations, sorted: as many as the count, or `LIMITS.pendingIdsShown` of them. */
  pending_elicitation_ids: z.array(Id).check(z.maxLength(LIMITS.pendingIdsShown)),
  awaiting_approval: z.boolean(),
  /** null for an id that `?ids=` asked about and that does not exist. */
  updated_at: z.nullable(Timestamp),
});
export const SessionPage = z.strictObject({ sessions: z.array(SessionSummary), next_cursor: z.nullable(z.string()) });
export const SessionSnapshot = z.strictObject({
  ...SessionSummary.shape,
  pending_elicitations: z.array(RequestEventRecord),
  descendant_pending_elicitations: z.array(RequestEventRecord),
});
export const PeekItems = z.strictObject({
  items: z.array(
    z.strictObject({
      type: z.literal("pending_elicitation"),
      elicitation_id: Id,
      prompt: z.string(),
      fields: z.optional(z.array(z.string()).check(z.minLength(1))),
    }),
  ),
});
export const Raised = z.strictObject({ elicitation_id: Id, deadline: Timestamp });
/** The verdict that stands, as its resolved event says it (an answering connection hears it here, not as that event). */
export const Answered = z.strictObject({ ...z.omit(ResolvedEventRecord, { type: true, session_id: true }).shape, status: z.literal("resolved") });
export const GaveUp = z.strictObject({ elicitation_id: Id, status: z.enum(["pending", "resolved"]) });
export const ElicitationRead = z.strictObject({
  session_id: Id,
  status: z.enum(["pending", "resolved"]),
  event: RequestEventRecord,
  verdict: z.optional(Verdict),
});
/** An approval link: the capability, the standalone page's address with it (when the deployment names its page), and its expiry (the deadline). */
export const ApprovalLink = z.strictObject({ elicitation_id: Id, token: z.string(), url: z.optional(z.string()), expires_at: Timestamp });
/** What an approval link reads: its elicitation, and once resolved the outcome without the form's content. */
export const LinkRead = z.strictObject({ ...ElicitationRead.shape, verdict: z.optional(z.omit(Verdict, { content: true })) });
/** One decision of the history: the request and its verdict, with how the verdict came and how long it took. */
export const HistoryEntry = z.strictObject({
  elicitation_id: Id,
  session_id: Id,
  params: ElicitationParams,
  created_at: Timestamp,
  deadline: Timestamp,
  verdict: z.strictObject({ ...Verdict.shape, via: Via }),
  /** From the request to the verdict, in milliseconds. */
  decision_ms: Count,
});
export const HistoryPage = z.strictObject({ items: z.array(HistoryEntry), next_cursor: z.nullable(z.string()) });
export const Cancelled = z.strictObject({ cancelled: Count });
export const MessageStatus = z.strictObject({ status: z.enum(["delivered", "queued", "held"]), message_id: z.string() });

const ErrorCode = z.enum([...(Object.keys(errorStatus) as [keyof typeof errorStatus]), "internal_error"]);
const ErrorFields = {
  code: ErrorCode,
  message: z.string(),
  /** On `conflict` for a second, different verdict: the verdict that stands. */
  verdict: z.optional(Verdict),
  /** On `rate_limited`: when to try again (also the `retry-after` header). */
  retry_after_seconds: z.optional(z.int().check(z.minimum(1))),
};
export const ErrorReply = z.strictObject({ error: z.strictObject(ErrorFields) });

// ---- Server WebSocket frames ----
export const HelloOkFrame = z.strictObject({ type: z.literal("hello.ok"), connection_id: z.string(), ref: Ref });
export const ParkedFrame = z.strictObject({ type: z.literal("elicitation.parked"), elicitation_id: Id, deadline: Timestamp, ref: Ref });
export const VerdictFrame = z.strictObject({
  type: z.literal("elicitation.verdict"),
  elicitation_id: Id,
  session_id: Id,
  action: VerdictAction,
  content: z.optional(VerdictContent),
  message: z.optional(VerdictMessage),
  reason: Reason,
  /** Who gave it: the `sub` of the token that answered or cancelled, `tollgate` for a deadline or a runner gone. */
  resolved_by: z.optional(z.string()),
  ref: Ref,
});
export const MessageFrame = z.strictObject({
  type: z.literal("session.message"),
  session_id: Id,
  message_id: z.string(),
  kind: z.enum(["message", "notice"]),
  text: z.string(),
  from_session_id: z.optional(Id),
});
/** `connection_id`: what a verdict names as its `answering_connection_id`. */
export const SubscribedFrame = z.strictObject({ type: z.literal("subscribed"), connection_id: z.string(), ref: Ref });
export const PongFrame = z.strictObject({ type: z.literal("pong"), ref: Ref });
export const ErrorFrame = z.strictObject({ type: z.literal("error"), ...ErrorFields, ref: Ref });

export const ServerFrame = z.discriminatedUnion("type", [
  HelloOkFrame,
  ParkedFrame,
  VerdictFrame,
  MessageFrame,
  SubscribedFrame,
  PongFrame,
  ErrorFrame,
  RequestEventRecord,
  ResolvedEventRecord,
  BadgeEvent,
]);
