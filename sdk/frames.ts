/**
 * The frames of Tollgate's wire protocol ("WebSocket API" in docs/protocol.md) as a runner sees
 * them: what Tollgate sends is validated as it arrives (unknown fields pass, as the protocol may
 * add some), and what the runner sends is kept within the size a frame may have.
 */
import * as z from "zod";
import { TollgateError } from "./errors.js";

const Ref = z.union([z.string(), z.number()]).optional();

export const VerdictFrame = z.object({
  type: z.literal("elicitation.verdict"),
  elicitation_id: z.string(),
  session_id: z.string(),
  action: z.enum(["accept", "decline", "cancel"]),
  content: z.record(z.string(), z.unknown()).optional(),
  /** What the human said with the verdict (why a decline, a note with an accept). */
  message: z.string().optional(),
  reason: z.enum(["answered", "timeout", "cancelled", "runner_gone"]),
  /** Who gave it (the `sub` of the token), `tollgate` for a deadline; absent from servers before it was sent. */
  resolved_by: z.string().optional(),
  ref: Ref,
});
export type Verdict = z.infer<typeof VerdictFrame>;

/** Why a wait was cancelled, in words an agent can pass on: a human's own cancel is `answered`. */
export function whyCancelled(verdict: Pick<Verdict, "reason">): string {
  if (verdict.reason === "answered") return "by a human";
  if (verdict.reason === "runner_gone") return "its runner was gone";
  return verdict.reason === "cancelled" ? "the run was cancelled" : verdict.reason;
}

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

export interface SessionInfo {
  session_id: string;
  parent_session_id?: string;
  title?: string;
}

/** What a client may send in one frame ("WebSocket frames and messages"): API Gateway closes the connection on more. */
export const FRAME_BYTES = 32 * 1024;
/** Room left in a frame for the `ref` the runner adds to it. */
const REF_ROOM = 32;
const HELLO_SESSIONS = 100;
const HELLO_RESUME = 1_000;

const utf8 = new TextEncoder();
const bytes = (text: string) => utf8.encode(text).length;

/** A frame as the text to send, or `payload_too_large` when it would not fit in one frame. */
export function encodeFrame(frame: Record<string, unknown>): string {
  const text = JSON.stringify(frame);
  const size = bytes(text);
  if (size > FRAME_BYTES) throw new TollgateError("payload_too_large", `frame of ${size} bytes is larger than ${FRAME_BYTES} bytes`);
  return text;
}

/** Checks that a frame plus its `ref` will fit, before anything is sent. */
export function checkFrameSize(frame: Record<string, unknown>): void {
  encodeFrame({ ...frame, ref: Number.MAX_SAFE_INTEGER });
}

/**
 * The `hello` frames that register these sessions and resume these waits: as many as it takes
 * for each to keep the protocol's counts and fit in one frame (each `hello` adds to the last).
 */
export function helloFrames(sessions: SessionInfo[], resume: string[]): Record<string, unknown>[] {
  const frames: { action: "hello"; sessions: SessionInfo[]; resume: string[] }[] = [];
  let current = { action: "hello" as const, sessions: [] as SessionInfo[], resume: [] as string[] };
  let size = bytes(JSON.stringify(current)) + REF_ROOM;
  const place = (list: "sessions" | "resume", item: SessionInfo | string, max: number) => {
    const more = bytes(JSON.stringify(item)) + 1;
    if (current[list].length >= max || size + more > FRAME_BYTES) {
      frames.push(current);
      current = { action: "hello", sessions: [], resume: [] };
      size = bytes(JSON.stringify(current)) + REF_ROOM;
    }
    (current[list] as unknown[]).push(item);
    size += more;
  };
  for (const session of sessions) place("sessions", session, HELLO_SESSIONS);
  for (const id of resume) place("resume", id, HELLO_RESUME);
  frames.push(current);
  return frames.map((f) => (f.resume.length > 0 ? f : { action: f.action, sessions: f.sessions }));
}
