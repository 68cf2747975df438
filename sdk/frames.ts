/** The frames Tollgate sends a runner (PROTOCOL.md "WebSocket API"), validated as they arrive. */
import * as z from "zod";

const Ref = z.union([z.string(), z.number()]).optional();

export const VerdictFrame = z.object({
  type: z.literal("elicitation.verdict"),
  elicitation_id: z.string(),
  session_id: z.string(),
  action: z.enum(["accept", "decline", "cancel"]),
  content: z.record(z.string(), z.unknown()).optional(),
  reason: z.enum(["answered", "timeout", "cancelled", "runner_gone"]),
  ref: Ref,
});
export type Verdict = z.infer<typeof VerdictFrame>;

export const MessageFrame = z.object({
  type: z.literal("session.message"),
  session_id: z.string(),
  message_id: z.string(),
  kind: z.enum(["message", "notice"]),
  text: z.string(),
  from_session_id: z.string().optional(),
});
export type SessionMessage = z.infer<typeof MessageFrame>;

export const ServerFrame = z.discriminatedUnion("type", [
  VerdictFrame,
  MessageFrame,
  z.object({ type: z.literal("hello.ok"), connection_id: z.string(), ref: Ref }),
  z.object({ type: z.literal("elicitation.parked"), elicitation_id: z.string(), deadline: z.string(), ref: Ref }),
  z.object({ type: z.literal("error"), code: z.string(), message: z.string(), ref: Ref }),
  z.object({ type: z.literal("pong"), ref: Ref }),
  z.object({ type: z.literal("subscribed"), ref: Ref }),
]);
export type ServerFrame = z.infer<typeof ServerFrame>;
