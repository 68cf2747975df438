/**
 * Zod schemas for every boundary of the wire protocol (docs/protocol.md). Types flow from these; nothing crosses into the
 * domain without passing one of them.
 */
import * as z from "./zod.js";

export const LIMITS = {
  idLength: 128,
  messageLength: 4_000,
  urlLength: 8_000,
  paramsBytes: 24 * 1024,
  schemaProperties: 32,
  titleLength: 256,
  textLength: 16_000,
  timeoutSeconds: { min: 1, max: 604_800, default: 86_400 },
  bodyBytes: 64 * 1024,
  ancestorDepth: 16,
  listLimit: { min: 1, max: 200, default: 50 },
  idsPerLookup: 100,
  verdictMessageLength: 2_000,
  /** `pending_elicitation_ids` of a session item: a session with more pending lists this many of them. */
  pendingIdsShown: 100,
} as const;

/**
 * A number DynamoDB stores as it was given: finite, inside the safe integer range, and zero or at
 * least 1e-130 in magnitude (DynamoDB refuses smaller ones; the SDK refuses unsafe integers).
 */
export const isStorableNumber = (n: number): boolean => Number.isFinite(n) && Math.abs(n) <= Number.MAX_SAFE_INTEGER && (n === 0 || Math.abs(n) >= 1e-130);
const StorableNumber = z.number().check(z.refine(isStorableNumber, "must be within ±9007199254740991, and 0 or at least 1e-130 in magnitude"));

/** Why a JSON value could not be stored as a DynamoDB map (an empty key, an unstorable number), or undefined. */
export function unstorable(root: unknown): string | undefined {
  const stack: [unknown, string][] = [[root, ""]];
  while (stack.length > 0) {
    const [value, path] = stack.pop()!;
    const at = path ? ` at ${path}` : "";
    if (typeof value === "number" && !isStorableNumber(value)) return `number out of range${at}`;
    if (!value || typeof value !== "object") continue;
    for (const [key, child] of Object.entries(value)) {
      if (!Array.isArray(value) && key === "") return `empty key${at}`;
      stack.push([child, path ? `${path}.${key}` : key]);
    }
  }
  return undefined;
}

export const Id = z.string().check(z.regex(/^[A-Za-z0-9_.:-]{1,128}$/, "must be 1 to 128 characters of A-Z a-z 0-9 _ . : -"));
/** A string of at most `max` characters (at least `min`). */
const Text = (max: number, min = 0) => z.string().check(...(min > 0 ? [z.minLength(min)] : []), z.maxLength(max));
/** A client's `ref`, echoed on the reply to its frame. */
export const Ref = z.optional(z.union([Text(128), z.number()]));

// ---- The MCP 2025-11-25 elicitation form grammar (`requestedSchema`) and URL mode ----
const Described = { title: z.optional(Text(256)), description: z.optional(Text(1_000)) };
const Choice = Text(256);
const TitledChoice = z.strictObject({ const: Choice, title: Text(256) });
const Choices = <T extends z.core.SomeType>(choice: T) => z.array(choice).check(z.minLength(1), z.maxLength(100));
export const Count = z.int().check(z.minimum(0));

type Issues = z.core.$RefinementCtx;
/** Refuses a lower bound above its upper bound, naming the pair. */
function ordered(ctx: Issues, value: Record<string, unknown>, low: string, high: string) {
  const [a, b] = [value[low], value[high]];
  if (typeof a === "number" && typeof b === "number" && a > b) ctx.addIssue({ code: "custom", path: [low], message: `${low} is above ${high}` });
}
/** Refuses choices that repeat (a select could not tell them apart) and a default that is not one of them. */
function choosable(ctx: Issues, values: string[], defaults: unknown[], path: PropertyKey[]) {
  if (new Set(values).size !== values.length) ctx.addIssue({ code: "custom", path, message: "choices must not repeat" });
  for (const d of defaults) {
    if (typeof d === "string" && !values.includes(d)) ctx.addIssue({ code: "custom", path: ["default"], message: `default ${JSON.stringify(d)} is not one of the choices` });
  }
}

/** Free text (with length and format), or a single select: untitled `enum`, legacy `enum` + `enumNames`, or titled `oneOf`. */
const StringProperty = z
  .strictObject({
    type: z.literal("string"),
    ...Described,
    enum: z.optional(Choices(Choice)),
    enumNames: z.optional(z.array(Text(256)).check(z.maxLength(100))),
    oneOf: z.optional(Choices(TitledChoice)),
    minLength: z.optional(Count),
    maxLength: z.optional(Count),
    format: z.optional(z.enum(["email", "uri", "date", "date-time"])),
    default: z.optional(Text(4_000)),
  })
  .check(
    z.superRefine((p, ctx) => {
      ordered(ctx, p, "minLength", "maxLength");
      if (p.enum && p.oneOf) ctx.addIssue({ code: "custom", path: ["oneOf"], message: "a select has enum or oneOf, not both" });
      if (p.enumNames && p.enumNames.length !== p.enum?.length) ctx.addIssue({ code: "custom", path: ["enumNames"], message: "enumNames needs one name for each enum value" });
      if (p.enum) choosable(ctx, p.enum, [p.default], ["enum"]);
      if (p.oneOf)
        choosable(
          ctx,
          p.oneOf.map((c) => c.const),
          [p.default],
          ["oneOf"],
        );
    }),
  );
const Bounds = { ...Described, minimum: z.optional(StorableNumber), maximum: z.optional(StorableNumber), default: z.optional(StorableNumber) };
const orderedBounds = z.superRefine<Record<string, unknown>>((p, ctx) => ordered(ctx, p, "minimum", "maximum"));
const NumberProperty = z.strictObject({ type: z.literal("number"), ...Bounds }).check(orderedBounds);
const IntegerProperty = z.strictObject({ type: z.literal("integer"), ...Bounds }).check(orderedBounds);
const BooleanProperty = z.strictObject({ type: z.literal("boolean"), ...Described, default: z.optional(z.boolean()) });
/** A multi-select: untitled `items.enum` or titled `items.anyOf`, with `minItems`/`maxItems`. */
const ArrayProperty = z
  .strictObject({
    type: z.literal("array"),
    ...Described,
    minItems: z.optional(Count),
    maxItems: z.optional(Count),
    items: z
      .strictObject({ type: z.optional(z.literal("string")), enum: z.optional(Choices(Choice)), anyOf: z.optional(Choices(TitledChoice)) })
      .check(z.refine((i) => (i.enum === undefined) !== (i.anyOf === undefined), "items has enum or anyOf (one of them)")),
    default: z.optional(z.array(Choice).check(z.maxLength(100))),
  })
  .check(
    z.superRefine((p, ctx) => {
      ordered(ctx, p, "minItems", "maxItems");
      choosable(ctx, p.items.enum ?? p.items.anyOf?.map((c) => c.const) ?? [], p.default ?? [], ["items"]);
    }),
  );
export const SchemaProperty = z.discriminatedUnion("type", [StringProperty, NumberProperty, IntegerProperty, BooleanProperty, ArrayProperty]);
export type SchemaProperty = z.infer<typeof SchemaProperty>;

export const RequestedSchema = z
  .strictObject({
    type: z.literal("object"),
    properties: z.record(Text(128, 1), SchemaProperty),
    required: z.optional(z.array(z.string())),
  })
  .check(
    z.refine((s) => Object.keys(s.properties).length <= LIMITS.schemaProperties, "at most 32 properties"),
    z.refine((s) => (s.required ?? []).every((name) => Object.hasOwn(s.properties, name)), "required names a property that does not exist"),
  );
export type RequestedSchema = z.infer<typeof RequestedSchema>;

const Message = Text(LIMITS.messageLength, 1);
/** Form mode (the default): a question, with a form or without (a plain approval). */
const FormParams = z.strictObject({ mode: z.optional(z.literal("form")), message: Message, requestedSchema: z.optional(RequestedSchema) });
/**
 * URL mode: the human is asked to consent to opening a web page (a sign-in, a payment). Tollgate
 * shows the address and never fetches it; only http(s) addresses without credentials in them.
 */
const WebUrl = z.url({ protocol: /^https?$/, error: "url must be an absolute http or https URL" }).check(
  z.maxLength(LIMITS.urlLength),
  // Runs even when the check above failed: an address that does not parse was refused there.
  z.refine((u) => !URL.canParse(u) || (!new URL(u).username && !new URL(u).password), "url must not carry a user name or password"),
);
const UrlParams = z.strictObject({
  mode: z.literal("url"),
  message: Message,
  url: WebUrl,
  elicitationId: Text(LIMITS.idLength * 2, 1),
  requestedSchema: z.optional(z.never({ error: "URL mode takes no requestedSchema" })),
});
export const ElicitationParams = z.discriminatedUnion("mode", [FormParams, UrlParams]);
export type ElicitationParams = z.infer<typeof ElicitationParams>;

export const TimeoutSeconds = z.int().check(z.minimum(LIMITS.timeoutSeconds.min), z.maximum(LIMITS.timeoutSeconds.max));
export const VerdictAction = z.enum(["accept", "decline", "cancel"]);
export type VerdictAction = z.infer<typeof VerdictAction>;
/** A verdict's form answers: any JSON object that DynamoDB can store as it is. */
export const Content = z.record(z.string(), z.unknown()).check(
  z.superRefine((value, ctx) => {
    const problem = unstorable(value);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  }),
);

export const SessionRegistration = z.strictObject({
  session_id: Id,
  parent_session_id: z.optional(Id),
  title: z.optional(Text(LIMITS.titleLength)),
});
export type SessionRegistration = z.infer<typeof SessionRegistration>;

// ---- HTTP bodies ----
export const PutSessionBody = z.strictObject({ parent_session_id: z.optional(Id), title: z.optional(Text(LIMITS.titleLength)) });

export const RequestEvent = z.strictObject({
  type: z.literal("response.elicitation_request"),
  elicitation_id: z.optional(Id),
  params: ElicitationParams,
  timeout_seconds: z.optional(TimeoutSeconds),
});
/** What the human said with a verdict (a refusal's reason, a note with an approval). */
export const VerdictMessage = Text(LIMITS.verdictMessageLength, 1);
export const ApprovalEvent = z.strictObject({
  type: z.literal("approval"),
  elicitation_id: Id,
  action: VerdictAction,
  content: z.optional(Content),
  message: z.optional(VerdictMessage),
  /** The caller's own subscribed connection that gives this verdict: it hears the outcome in the reply, not as a resolved event. */
  answering_connection_id: z.optional(Text(256, 1)),
});
/** The verdict an approval link gives: its elicitation is the link's own (a link's holder has no subscription). */
export const LinkVerdictBody = z.omit(ApprovalEvent, { type: true, elicitation_id: true, answering_connection_id: true });
/** `for`: whom the shared link is for, recorded as `resolved_by` when it answers (default: who shared it). */
export const ShareLinkBody = z.strictObject({
  for: z.optional(Text(256, 1).check(z.refine((name) => name !== "tollgate" && !name.startsWith("target:"), "may not be `tollgate` or start with `target:` (Tollgate's own names)"))),
});
export const RunnerResolvedEvent = z.strictObject({ type: z.literal("response.elicitation_resolved"), elicitation_id: Id });
export const PostEventBody = z.discriminatedUnion("type", [RequestEvent, ApprovalEvent, RunnerResolvedEvent]);

export const CancelSessionBody = z.strictObject({ descendants: z.optional(z.boolean()) });
export const PostMessageBody = z.strictObject({ text: Text(LIMITS.textLength, 1), from_session_id: z.optional(Id) });

/** A page size given in a query string; every way of getting it wrong (not a number, empty, out of range) is refused in the same words. */
const limitRefused = { error: `must be an integer from ${LIMITS.listLimit.min} to ${LIMITS.listLimit.max}` };
const ListLimit = z.optional(z.coerce.number(limitRefused).check(z.int(limitRefused), z.minimum(LIMITS.listLimit.min, limitRefused), z.maximum(LIMITS.listLimit.max, limitRefused)));
const Flag = z.optional(z.enum(["true", "false"]));
const Cursor = z.optional(Text(2_048));

export const ListSessionsQuery = z.strictObject({
  limit: ListLimit,
  cursor: Cursor,
  ids: z.optional(Text(LIMITS.idsPerLookup * 130)),
  pending: Flag,
});

/** How a verdict came: a human's token, an approval link, the deadline, or the runner's side (cancel, runner gone). */
export const Via = z.enum(["token", "link", "deadline", "runner"]);
export type Via = z.infer<typeof Via>;

// A query string reads a bare + as a space, so an offset's + comes through only as %2B: the refusal says so.
const Instant = z.iso.datetime({ offset: true, error: "must be an ISO time with an offset, as 2026-12-01T10:00:00Z or 2026-12-01T10:00:00+02:00 (a + in a query string is %2B)" });
export const HistoryQuery = z.strictObject({
  since: z.optional(Instant),
  until: z.optional(Instant),
  session_id: z.optional(Id),
  descendants: Flag,
  resolved_by: z.optional(Text(256, 1)),
  action: z.optional(VerdictAction),
  limit: ListLimit,
  cursor: Cursor,
  format: z.optional(z.enum(["json", "jsonl"])),
});
export type HistoryQuery = z.infer<typeof HistoryQuery>;
/** The response header that carries a JSON-lines history page's next cursor (absent on the last page). */
export const NEXT_CURSOR_HEADER = "x-next-cursor";
/** Where a history page ends, as its cursor carries it: `resolved_at#elicitation_id`. */
export const HistoryPosition = z.string().check(z.regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z#[A-Za-z0-9_.:-]{1,128}$/));

// ---- WebSocket frames ----
export const HelloFrame = z.strictObject({
  action: z.literal("hello"),
  ref: Ref,
  sessions: z.array(SessionRegistration).check(z.maxLength(100)),
  resume: z.optional(z.array(Id).check(z.maxLength(1_000))),
});
export const ElicitFrame = z.strictObject({
  action: z.literal("elicit"),
  ref: Ref,
  session_id: Id,
  elicitation_id: z.optional(Id),
  params: ElicitationParams,
  timeout_seconds: z.optional(TimeoutSeconds),
});
export const CancelFrame = z.strictObject({ action: z.literal("cancel"), ref: Ref, elicitation_id: Id });
export const SubscribeFrame = z.strictObject({
  action: z.literal("subscribe"),
  ref: Ref,
  sessions: z.union([z.literal("*"), z.array(Id).check(z.minLength(1), z.maxLength(100))]),
  /** false: this connection hears no `session.badge` events; it counts from the ids and events it has (docs/protocol.md). */
  badges: z.optional(z.boolean()),
});
export const PingFrame = z.strictObject({ action: z.literal("ping"), ref: Ref });

// ---- Tokens ----
export const Role = z.enum(["runner", "human", "service"]);
export type Role = z.infer<typeof Role>;
export const Claims = z.object({ sub: Text(256, 1), tenant: Id, role: Role, exp: z.number() });
export type Claims = z.infer<typeof Claims>;

// ---- Timers (Scheduler input) ----
const Ordinal = z.optional(z.int().check(z.minimum(1)));
export const TimerInput = z.strictObject({
  tenant: Id,
  elicitation_id: z.optional(Id),
  connection_id: z.optional(Text(256, 1)),
  round: Ordinal,
  target_id: z.optional(Id),
  event_id: z.optional(Text(LIMITS.idLength * 3, 1)),
  attempt: Ordinal,
});
export type TimerInput = z.infer<typeof TimerInput>;
