/**
 * The malformed inputs the security battery sends: for each HTTP route that takes a body and each
 * WebSocket action, a valid template and, per field, what makes it invalid. Every value generated
 * here is invalid by construction; battery.test.ts sends them and checks the replies.
 */
import fc from "fast-check";
import {
  badAction,
  badContent,
  badFormContent,
  badId,
  badParams,
  badText,
  badTimeout,
  deepText,
  type FieldSpec,
  mutatedBody,
  notAnObjectText,
  notArray,
  notBoolean,
  notString,
  withKey,
} from "./support.js";

const badType = fc.oneof(notString, fc.constantFrom("", "Approval", "approval ", "response.elicitation_request\u0000", "response.elicitation", "event", "__proto__"));

export const bodyRoutes: { name: string; method: string; path: string; role: "runner" | "human" | "service"; template: Record<string, unknown>; fields: Record<string, FieldSpec> }[] = [
  {
    name: "PUT /v1/sessions/{id}",
    method: "PUT",
    path: "/v1/sessions/conv_fuzz_child",
    role: "runner",
    template: { parent_session_id: "conv_fuzz", title: "fuzz:child" },
    fields: { parent_session_id: { required: false, bad: badId }, title: { required: false, bad: badText(256) } },
  },
  {
    name: "POST events (raise)",
    method: "POST",
    path: "/v1/sessions/conv_fuzz/events",
    role: "runner",
    template: { type: "response.elicitation_request", elicitation_id: "el_fuzz_new", params: { message: "May I?" }, timeout_seconds: 60 },
    fields: {
      type: { required: true, bad: badType },
      elicitation_id: { required: false, bad: badId },
      params: { required: true, bad: badParams },
      timeout_seconds: { required: false, bad: badTimeout },
    },
  },
  {
    name: "POST events (approval)",
    method: "POST",
    path: "/v1/sessions/conv_fuzz_child/events",
    role: "human",
    template: { type: "approval", elicitation_id: "el_fuzz", action: "accept", content: { answer: "yes" } },
    fields: { type: { required: true, bad: badType }, elicitation_id: { required: true, bad: badId }, action: { required: true, bad: badAction }, content: { required: false, bad: badFormContent } },
  },
  {
    name: "POST events (approval, no form)",
    method: "POST",
    path: "/v1/sessions/conv_fuzz/events",
    role: "service",
    template: { type: "approval", elicitation_id: "el_free", action: "accept", content: { note: "free text" } },
    fields: { type: { required: true, bad: badType }, elicitation_id: { required: true, bad: badId }, action: { required: true, bad: badAction }, content: { required: false, bad: badContent } },
  },
  {
    name: "POST events (runner gave up)",
    method: "POST",
    path: "/v1/sessions/conv_fuzz_child/events",
    role: "runner",
    template: { type: "response.elicitation_resolved", elicitation_id: "el_fuzz" },
    fields: { type: { required: true, bad: badType }, elicitation_id: { required: true, bad: badId } },
  },
  {
    name: "POST cancel",
    method: "POST",
    path: "/v1/sessions/conv_fuzz/cancel",
    role: "service",
    template: { descendants: true },
    fields: { descendants: { required: false, bad: notBoolean } },
  },
  {
    name: "POST messages",
    method: "POST",
    path: "/v1/sessions/conv_fuzz/messages",
    role: "runner",
    template: { text: "hello there", from_session_id: "conv_fuzz_child" },
    fields: { text: { required: true, bad: badText(16_000, false) }, from_session_id: { required: false, bad: badId } },
  },
];

/** Percent-encode every UTF-16 unit, lone surrogates too (as bytes no decoder accepts). */
export function encodePath(id: string): string {
  let out = "";
  for (const ch of id) {
    const code = ch.codePointAt(0)!;
    out += code >= 0xd800 && code <= 0xdfff ? "%ED%A0%80" : encodeURIComponent(ch);
  }
  return out;
}

const badRef = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.array(fc.integer(), { maxLength: 2 }),
  fc.dictionary(fc.string({ maxLength: 3 }), fc.integer(), { maxKeys: 2 }),
  fc.integer({ min: 129, max: 400 }).map((n) => "r".repeat(n)),
);

const badRegistration = fc.oneof(
  notObject(),
  badId.map((session_id) => ({ session_id })),
  badId.map((parent_session_id) => ({ session_id: "conv_fuzz", parent_session_id })),
  badText(256).map((title) => ({ session_id: "conv_fuzz", title })),
  fc.string({ minLength: 1, maxLength: 8 }).map((k) => ({ session_id: "conv_fuzz", [`x_${k}`]: 1 })),
  fc.constant(withKey({ session_id: "conv_fuzz" }, "__proto__", { title: "polluted" })),
);
function notObject() {
  return fc.oneof(notString, fc.string({ maxLength: 10 }), fc.constant(null));
}

export const frameKinds: { name: string; human?: boolean; frame: fc.Arbitrary<string> }[] = [
  {
    name: "hello",
    frame: mutatedBody(
      { action: "hello", sessions: [{ session_id: "conv_fuzz" }], resume: ["el_fuzz"] },
      {
        sessions: {
          required: true,
          bad: fc.oneof(
            notArray,
            fc.tuple(fc.array(fc.constant({ session_id: "conv_fuzz" }), { maxLength: 2 }), badRegistration).map(([ok, bad]) => [...ok, bad]),
            fc.constant(Array.from({ length: 101 }, (_, i) => ({ session_id: `s${i}` }))),
          ),
        },
        resume: {
          required: false,
          bad: fc.oneof(
            notArray,
            fc.tuple(fc.array(fc.constant("el_fuzz"), { maxLength: 2 }), badId).map(([ok, bad]) => [...ok, bad]),
            fc.constant(Array.from({ length: 1_001 }, (_, i) => `e${i}`)),
          ),
        },
        ref: { required: false, bad: badRef },
      },
    ).map((f) => JSON.stringify(f)),
  },
  {
    name: "elicit",
    frame: fc.oneof(
      mutatedBody(
        { action: "elicit", session_id: "conv_fuzz", elicitation_id: "el_ws_new", params: { message: "May I?" }, timeout_seconds: 60 },
        {
          session_id: { required: true, bad: badId },
          elicitation_id: { required: false, bad: badId },
          params: { required: true, bad: badParams },
          timeout_seconds: { required: false, bad: badTimeout },
          ref: { required: false, bad: badRef },
        },
      ).map((f) => JSON.stringify(f)),
      // Over API Gateway's frame limit (32 KB) and message limit (128 KB): the connection closes with 1009.
      fc.nat(1_000).map((n) => JSON.stringify({ action: "elicit", session_id: "conv_fuzz", params: { message: "x" }, pad: "p".repeat(128 * 1024 + n) })),
    ),
  },
  {
    name: "cancel",
    frame: mutatedBody({ action: "cancel", elicitation_id: "el_fuzz" }, { elicitation_id: { required: true, bad: badId }, ref: { required: false, bad: badRef } }).map((f) => JSON.stringify(f)),
  },
  {
    name: "subscribe",
    human: true,
    frame: mutatedBody(
      { action: "subscribe", sessions: "*" },
      {
        sessions: {
          required: true,
          bad: fc.oneof(
            fc.string({ maxLength: 5 }).filter((s) => s !== "*"),
            fc.constantFrom([], ["*"], "**", null, 1, {}),
            fc.tuple(fc.array(fc.constant("conv_fuzz"), { maxLength: 2 }), badId).map(([ok, bad]) => [...ok, bad]),
            fc.constant(Array.from({ length: 101 }, (_, i) => `s${i}`)),
          ),
        },
        ref: { required: false, bad: badRef },
      },
    ).map((f) => JSON.stringify(f)),
  },
  {
    name: "ping",
    frame: fc.oneof(
      badRef.map((ref) => JSON.stringify({ action: "ping", ref })),
      fc
        .tuple(
          fc.oneof(
            fc.constantFrom("__proto__", "constructor", "session_id"),
            fc.string({ minLength: 1, maxLength: 8 }).map((k) => `x_${k}`),
          ),
          fc.jsonValue({ maxDepth: 2 }),
        )
        .map(([k, v]) => JSON.stringify(withKey({ action: "ping" }, k, v))),
    ),
  },
  {
    name: "unknown action",
    frame: fc
      .tuple(
        fc.oneof(
          fc.string({ maxLength: 20 }).filter((a) => !["hello", "elicit", "cancel", "subscribe", "ping"].includes(a)),
          fc.constantFrom("$connect", "$disconnect", "$default", "HELLO", "hello ", "ping\u0000", "__proto__", "constructor"),
          notString,
        ),
        fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
      )
      .map(([action, rest]) => JSON.stringify({ ...rest, action })),
  },
  {
    name: "not a JSON object (text, arrays, numbers, null, deep nesting)",
    frame: fc.oneof(
      notAnObjectText(128 * 1024),
      deepText.map((deep) => `{"action":"elicit","session_id":"conv_fuzz","params":${deep}}`),
      deepText.map((deep) => `{"action":"hello","sessions":${deep}}`),
    ),
  },
];

/** API Gateway's WebSocket frame limit: a bigger frame closes the connection (1009) and reaches no handler. */
export const FRAME_LIMIT_BYTES = 32 * 1024;
