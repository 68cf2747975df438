/** Shared helpers of the security tests: the protocol's error codes, raw clients, and hostile input generators. */
import fc from "fast-check";
import WebSocket from "ws";
import { functions } from "../../functions/catalog.js";
import type { Harness, TestSocket } from "../support/tollgate.js";

/** docs/protocol.md "Errors": every code and its HTTP status. */
export const PROTOCOL_CODES: Record<string, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  rate_limited: 429,
};

/** What an error body must never show: stack frames, source paths, SDK or runtime error names. */
export const LEAK = /\.ts:\d|\.js:\d|node_modules|\/work\/|\bat \w+ \(|Exception|TypeError|RangeError|SyntaxError|ReferenceError|dynamodb|internal_error|zod|undefined is not|Cannot read/gi;

/** The first internal-looking piece of `reply` that is not simply an echo of the caller's own `sent` text. */
export function leakIn(reply: string, sent = ""): string | undefined {
  const echo = sent.toLowerCase();
  return [...reply.matchAll(LEAK)].map((m) => m[0]).find((m) => !echo.includes(m.toLowerCase()));
}

export interface RawReply {
  status: number;
  text: string;
  json?: any;
}

/** An HTTP call whose body goes out exactly as given (raw text, or JSON of a value). */
export async function rawHttp(t: Harness, token: string | undefined, method: string, path: string, body?: { raw: string } | { json: unknown }): Promise<RawReply> {
  const payload = body === undefined ? undefined : "raw" in body ? body.raw : JSON.stringify(body.json);
  const response = await fetch(`${t.runtime.httpUrl}${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), "content-type": "application/json" },
    body: payload,
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, text, json };
}

/** Why an HTTP reply is not a protocol refusal, or undefined when it is one. */
export function notAProtocolError(reply: RawReply, sent?: string): string | undefined {
  const error = reply.json?.error;
  if (!error || typeof error !== "object") return `status ${reply.status}, body is not {"error":...}: ${reply.text.slice(0, 200)}`;
  if (PROTOCOL_CODES[error.code] === undefined) return `code ${JSON.stringify(error.code)} is not a protocol error code (status ${reply.status})`;
  if (PROTOCOL_CODES[error.code] !== reply.status) return `code ${error.code} came with status ${reply.status}`;
  if (typeof error.message !== "string") return "error has no message";
  if (leakIn(reply.text, sent)) return `error body leaks internals (${leakIn(reply.text, sent)}): ${reply.text.slice(0, 300)}`;
  return undefined;
}

/**
 * Whether the HTTP API has a route for this request, as API Gateway matches one: the method, and
 * each `{param}` of a catalog path as one non-empty segment of the path as sent (dot segments resolved).
 */
export function hasRoute(method: string, path: string): boolean {
  const { pathname } = new URL(path, "http://127.0.0.1");
  return Object.values(functions).some(({ trigger }) => trigger.kind === "http" && trigger.method === method && new RegExp(`^${trigger.path.replace(/\{\w+\}/g, "[^/]+")}$`).test(pathname));
}

/** Why a reply to a request no route matches is not API Gateway's own 404 (docs/protocol.md "HTTP API, more precisely"). */
export const notTheGatewayNotFound = (reply: RawReply): string | undefined =>
  reply.status === 404 && JSON.stringify(reply.json) === '{"message":"Not Found"}' ? undefined : `status ${reply.status} for a path no route matches: ${reply.text.slice(0, 200)}`;

/** Why a WebSocket reply is not a protocol error frame, or undefined when it is one. */
export function notAnErrorFrame(frame: any, sent?: string): string | undefined {
  if (frame?.type !== "error") return `not an error frame: ${JSON.stringify(frame)?.slice(0, 200)}`;
  if (PROTOCOL_CODES[frame.code] === undefined) return `code ${JSON.stringify(frame.code)} is not a protocol error code`;
  if (typeof frame.message !== "string") return "error frame has no message";
  const text = JSON.stringify(frame);
  if (leakIn(text, sent)) return `error frame leaks internals (${leakIn(text, sent)}): ${text.slice(0, 300)}`;
  return undefined;
}

/** Send one frame and take the next frame this socket receives as its reply (one frame in flight per socket). */
export async function exchange(socket: TestSocket, frame: string, timeoutMs = 10_000): Promise<any> {
  const seen = socket.frames.length;
  socket.send(frame);
  return socket.next((f) => socket.frames.indexOf(f) >= seen, timeoutMs);
}

/** Open a WebSocket with the token in a header or as `?token=`; resolves the upgrade's HTTP status (101 when it opened). */
export function upgradeStatus(url: string, token: string | undefined, via: "header" | "query"): Promise<number> {
  return new Promise((resolve, reject) => {
    const target = via === "query" && token !== undefined ? `${url}?token=${encodeURIComponent(token)}` : url;
    const ws = new WebSocket(target, { headers: via === "header" && token !== undefined ? { authorization: `Bearer ${token}` } : {} });
    ws.once("open", () => {
      ws.terminate();
      resolve(101);
    });
    ws.once("unexpected-response", (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.once("error", (error) => {
      if (ws.readyState !== WebSocket.CLOSED) reject(error);
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Hostile inputs. Every generator below yields values that are invalid by construction for the
// place they go, so a request built from them must be refused whatever else it carries.
// ---------------------------------------------------------------------------------------------

/** An object with an own, enumerable key (even `__proto__`), as JSON.parse would build it. */
export function withKey(target: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  // Object.fromEntries defines own properties, so even `__proto__` becomes a plain key.
  return Object.fromEntries([...Object.entries(target).filter(([k]) => k !== key), [key, value]]);
}

export const protoKeys = fc.constantFrom("__proto__", "constructor", "prototype", "__defineGetter__", "hasOwnProperty", "toString", "valueOf", "isPrototypeOf");

const nastyChars = fc.constantFrom(" ", "/", "#", "?", "%", "\\", "\u0000", "\n", "\t", "é", "😀", "\u202e", "\ufeff", "ｱ", "\ud800", "\udfff", "'", '"', "<", "${", "*", "+", "@");

export const VALID_ID = /^[A-Za-z0-9_.:-]{1,128}$/;

/** A string that is not a protocol id: a character outside its alphabet, empty, or too long. */
export const badIdString = fc
  .oneof(
    fc.tuple(fc.string({ maxLength: 20 }), nastyChars, fc.string({ unit: "grapheme", maxLength: 20 })).map(([a, b, c]) => a + b + c),
    fc.string({ unit: "grapheme", minLength: 1, maxLength: 40 }),
    fc.constant(""),
    fc.integer({ min: 129, max: 2_000 }).map((n) => "a".repeat(n)),
  )
  .filter((s) => !VALID_ID.test(s));

/** Pieces of JSON text that nest deeper than any request may. */
export const deepText = fc
  .tuple(fc.integer({ min: 21, max: 5_000 }), fc.constantFrom("array", "object"))
  .map(([depth, kind]) => (kind === "array" ? `${"[".repeat(depth)}1${"]".repeat(depth)}` : `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`));

export function deepValue(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
}

const scalarNotString = fc.oneof(fc.integer(), fc.double({ noNaN: true }), fc.boolean(), fc.constant(null), fc.constant(1e308), fc.constant(-0));
const compound = fc.oneof(fc.array(fc.integer(), { maxLength: 3 }), fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 3 }));

/** Not a string. */
export const notString = fc.oneof(scalarNotString, compound);
/** Not an object (arrays and null included). */
export const notObject = fc.oneof(scalarNotString, fc.string({ maxLength: 20 }), fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }));
/** Not an array. */
export const notArray = fc.oneof(scalarNotString, fc.string({ maxLength: 20 }), fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 3 }));
/** Not a boolean. */
export const notBoolean = fc.oneof(fc.integer(), fc.string({ maxLength: 10 }), fc.constant(null), compound, fc.constantFrom("true", "false", 0, 1));

/** A string that is not a well-formed id, or no string at all. */
export const badId = fc.oneof(notString, badIdString);

/** A string over `max` characters (multi-byte ones too), a lone surrogate, or not a string; "" too unless `emptyIsValid`. */
export const badText = (max: number, emptyIsValid = true) =>
  fc.oneof(
    notString,
    fc.tuple(fc.constantFrom("x", "é", "😀", "\u0000"), fc.nat(40)).map(([c, n]) => c.repeat(max + 1 + n)),
    fc.string({ maxLength: 10 }).map((s) => `${s}\ud800`),
    ...(emptyIsValid ? [] : [fc.constant("")]),
  );

/** A JSON value as text that no field of Tollgate accepts where a string or a small object is due. */
export const hostileText = fc.oneof(
  deepText,
  fc.constantFrom(
    "NaN",
    "Infinity",
    "-Infinity",
    "undefined",
    "0x10",
    "1e99999",
    "-1e99999",
    "12345678901234567890123",
    '"\\ud800"',
    '"\\udc00\\ud800"',
    "{",
    "[",
    '"',
    "{}}",
    "[1,]",
    "{'a':1}",
    "\u0000",
  ),
);

/** A number that DynamoDB could not store as given. */
export const unstorableNumber = fc.constantFrom(1e20, -1e20, 1e300, 2 ** 53 + 2, 1e-200, -1e-131);

/** A `content` that no elicitation accepts, with or without a form. */
export const badContent = fc.oneof(
  notObject,
  fc.constant(null),
  fc.constant(withKey({ answer: "yes" }, "__proto__", { polluted: true })),
  fc.constant({ "": 1 }),
  unstorableNumber.map((n) => ({ answer: n })),
  unstorableNumber.map((n) => ({ list: [1, { deeper: n }] })),
  fc.integer({ min: 21, max: 400 }).map((d) => ({ answer: deepValue(d) })),
);

/** A `content` that the fuzzed elicitation's strict form (`answer`: yes|no, required; `count`: 0..10) refuses. */
export const badFormContent = fc.oneof(
  badContent,
  fc.string({ minLength: 1, maxLength: 10 }).map((k) => ({ answer: "yes", [`zz_${k}`]: "not in the form" })),
  fc.constantFrom({ answer: 42 }, { answer: "maybe" }, { count: 3 }, { answer: "yes", count: 11 }, { answer: "no", count: 1.5 }, {}),
);

/** A requestedSchema that the protocol refuses. */
export const badRequestedSchema = fc.oneof(
  notObject,
  fc.constant({ type: "array", properties: {} }),
  fc.constant({ type: "object" }),
  fc.constant({ type: "object", properties: { a: { type: "object" } } }),
  fc.constant({ type: "object", properties: { a: { type: "string", nested: { type: "string" } } } }),
  fc.constant({ type: "object", properties: { a: { type: "string" } }, required: ["b"] }),
  fc.constant({ type: "object", properties: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`p${i}`, { type: "boolean" }])) }),
  fc.constant({ type: "object", properties: withKey({}, "__proto__", { type: "string" }) }),
  fc.constant({ type: "object", properties: { "": { type: "string" } } }),
  unstorableNumber.map((n) => ({ type: "object", properties: { a: { type: "number", minimum: n } } })),
  fc.constant({ type: "object", properties: { a: { type: "string", enum: [] } } }),
  fc.constant({ type: "object", properties: { a: { type: "integer", default: 1.5, maximum: "9" } } }),
);

export const badParams = fc.oneof(
  notObject,
  fc.constant({}),
  badText(4_000, false).map((message) => ({ message })),
  badRequestedSchema.map((requestedSchema) => ({ message: "May I?", requestedSchema })),
  fc
    .tuple(
      fc.oneof(
        protoKeys,
        fc.string({ minLength: 1, maxLength: 8 }).map((k) => `x_${k}`),
      ),
      fc.jsonValue({ maxDepth: 1 }),
    )
    .map(([k, v]) => withKey({ message: "May I?" }, k, v)),
  // Over 24 KiB of params in a body under 64 KiB: payload_too_large.
  fc.constant({
    message: "big",
    requestedSchema: { type: "object", properties: Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`p${i}`, { type: "string", description: "d".repeat(990), default: "y".repeat(3_900) }])) },
  }),
);

export const badTimeout = fc.oneof(fc.constantFrom(0, -1, 604_801, 1.5, "60", null, 1e308, true), fc.integer({ min: 604_801 }), fc.integer({ max: 0 }));
export const badAction = fc.oneof(notString, fc.constantFrom("ACCEPT", "approve", "", "accept ", "cancel\u0000", "decline\ud800", "yes"));

/** A field of a body template: whether it is required, and values that make it invalid. */
export interface FieldSpec {
  required: boolean;
  bad: fc.Arbitrary<unknown>;
}

export type Mutation = { kind: "drop"; field: string } | { kind: "bad"; field: string; value: unknown } | { kind: "extra"; key: string; value: unknown };

/**
 * A body built from a valid template by one to three mutations, each of which alone makes it
 * invalid: drop a required field, give a field an invalid value, add a key the schema does not know.
 */
export function mutatedBody(template: Record<string, unknown>, fields: Record<string, FieldSpec>): fc.Arbitrary<Record<string, unknown>> {
  const names = Object.keys(fields);
  const required = names.filter((n) => fields[n].required);
  const mutation: fc.Arbitrary<Mutation> = fc.oneof(
    ...(required.length > 0 ? [fc.constantFrom(...required).map((field): Mutation => ({ kind: "drop", field }))] : []),
    fc.constantFrom(...names).chain((field) => fields[field].bad.map((value): Mutation => ({ kind: "bad", field, value }))),
    fc
      .tuple(
        fc.oneof(
          protoKeys,
          fc.string({ minLength: 1, maxLength: 12 }).filter((k) => !names.includes(k) && k !== "ref" && k !== "action"),
        ),
        fc.jsonValue({ maxDepth: 2 }),
      )
      .map(([key, value]): Mutation => ({ kind: "extra", key, value })),
  );
  return fc.array(mutation, { minLength: 1, maxLength: 3 }).map((mutations) => {
    let body = { ...template };
    for (const m of mutations) {
      if (m.kind === "drop") body = Object.fromEntries(Object.entries(body).filter(([k]) => k !== m.field));
      else body = withKey(body, m.kind === "bad" ? m.field : m.key, m.value);
    }
    return body;
  });
}

/** Raw text that is not a JSON object: garbage, other JSON types, too deep, or too large. */
export const notAnObjectText = (oversizeBytes: number) =>
  fc.oneof(
    fc.string({ unit: "binary", minLength: 1, maxLength: 200 }).filter((s) => {
      try {
        const v = JSON.parse(s);
        return !v || typeof v !== "object" || Array.isArray(v);
      } catch {
        return true;
      }
    }),
    fc.constantFrom("null", "true", "0", "-1", '"a string"', "[]", '[{"action":"ping"}]', "[[[]]]", "\ufeff{}", "{}garbage", '{"a":1', '{"a":1,}', "{'a':1}"),
    fc
      .jsonValue({ maxDepth: 2 })
      .filter((v) => !v || typeof v !== "object" || Array.isArray(v))
      .map((v) => JSON.stringify(v)),
    deepText,
    fc.nat(2_000).map((n) => `{"text":"${"x".repeat(oversizeBytes + n)}"}`),
  );
