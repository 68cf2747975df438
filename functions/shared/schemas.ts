/**
 * Zod schemas for every boundary of PROTOCOL.md. Types flow from these; nothing crosses into the
 * domain without passing one of them.
 */
import * as z from "zod";

export const LIMITS = {
  idLength: 128,
  messageLength: 4_000,
  paramsBytes: 24 * 1024,
  schemaProperties: 32,
  titleLength: 256,
  textLength: 16_000,
  timeoutSeconds: { min: 1, max: 604_800, default: 86_400 },
  bodyBytes: 64 * 1024,
  ancestorDepth: 16,
  listLimit: { min: 1, max: 200, default: 50 },
  idsPerLookup: 100,
} as const;

/**
 * A number DynamoDB stores as it was given: finite, inside the safe integer range, and zero or at
 * least 1e-130 in magnitude (DynamoDB refuses smaller ones; the SDK refuses unsafe integers).
 */
export const isStorableNumber = (n: number): boolean =>
  Number.isFinite(n) && Math.abs(n) <= Number.MAX_SAFE_INTEGER && (n === 0 || Math.abs(n) >= 1e-130);
const StorableNumber = z.number().refine(isStorableNumber, "must be within ±9007199254740991, and 0 or at least 1e-130 in magnitude");

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

export const Id = z.string().regex(/^[A-Za-z0-9_.:-]{1,128}$/, "must be 1 to 128 characters of A-Z a-z 0-9 _ . : -");
const Text = (max: number) => z.string().max(max);
const Ref = z.union([z.string().max(128), z.number()]).optional();

const Described = { title: Text(256).optional(), description: Text(1_000).optional() };
const StringProperty = z.strictObject({
  type: z.literal("string"),
  ...Described,
  enum: z.array(Text(256)).min(1).max(100).optional(),
  enumNames: z.array(Text(256)).max(100).optional(),
  minLength: z.number().int().min(0).optional(),
  maxLength: z.number().int().min(0).optional(),
  format: z.enum(["email", "uri", "date", "date-time"]).optional(),
  default: Text(4_000).optional(),
});
const Bounds = { ...Described, minimum: StorableNumber.optional(), maximum: StorableNumber.optional(), default: StorableNumber.optional() };
const NumberProperty = z.strictObject({ type: z.literal("number"), ...Bounds });
const IntegerProperty = z.strictObject({ type: z.literal("integer"), ...Bounds });
const BooleanProperty = z.strictObject({ type: z.literal("boolean"), ...Described, default: z.boolean().optional() });
export const SchemaProperty = z.discriminatedUnion("type", [StringProperty, NumberProperty, IntegerProperty, BooleanProperty]);
export type SchemaProperty = z.infer<typeof SchemaProperty>;

export const RequestedSchema = z
  .strictObject({
    type: z.literal("object"),
    properties: z.record(z.string().min(1).max(128), SchemaProperty),
    required: z.array(z.string()).optional(),
  })
  .refine((s) => Object.keys(s.properties).length <= LIMITS.schemaProperties, "at most 32 properties")
  .refine((s) => (s.required ?? []).every((name) => Object.hasOwn(s.properties, name)), "required names a property that does not exist");
export type RequestedSchema = z.infer<typeof RequestedSchema>;

export const ElicitationParams = z.strictObject({
  message: z.string().min(1).max(LIMITS.messageLength),
  requestedSchema: RequestedSchema.optional(),
});
export type ElicitationParams = z.infer<typeof ElicitationParams>;

export const TimeoutSeconds = z.number().int().min(LIMITS.timeoutSeconds.min).max(LIMITS.timeoutSeconds.max);
export const VerdictAction = z.enum(["accept", "decline", "cancel"]);
export type VerdictAction = z.infer<typeof VerdictAction>;
/** A verdict's form answers: any JSON object that DynamoDB can store as it is. */
export const Content = z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
  const problem = unstorable(value);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});

export const SessionRegistration = z.strictObject({
  session_id: Id,
  parent_session_id: Id.optional(),
  title: Text(LIMITS.titleLength).optional(),
});
export type SessionRegistration = z.infer<typeof SessionRegistration>;

// ---- HTTP bodies ----
export const PutSessionBody = z.strictObject({ parent_session_id: Id.optional(), title: Text(LIMITS.titleLength).optional() });

export const RequestEvent = z.strictObject({
  type: z.literal("response.elicitation_request"),
  elicitation_id: Id.optional(),
  params: ElicitationParams,
  timeout_seconds: TimeoutSeconds.optional(),
});
export const ApprovalEvent = z.strictObject({
  type: z.literal("approval"),
  elicitation_id: Id,
  action: VerdictAction,
  content: Content.optional(),
});
export const RunnerResolvedEvent = z.strictObject({ type: z.literal("response.elicitation_resolved"), elicitation_id: Id });
export const PostEventBody = z.discriminatedUnion("type", [RequestEvent, ApprovalEvent, RunnerResolvedEvent]);

export const CancelSessionBody = z.strictObject({ descendants: z.boolean().optional() });
export const PostMessageBody = z.strictObject({ text: z.string().min(1).max(LIMITS.textLength), from_session_id: Id.optional() });

export const ListSessionsQuery = z.strictObject({
  limit: z.coerce.number().int().min(LIMITS.listLimit.min).max(LIMITS.listLimit.max).optional(),
  cursor: z.string().max(2_048).optional(),
  ids: z.string().max(LIMITS.idsPerLookup * 130).optional(),
  pending: z.enum(["true", "false"]).optional(),
});

// ---- WebSocket frames ----
export const HelloFrame = z.strictObject({
  action: z.literal("hello"),
  ref: Ref,
  sessions: z.array(SessionRegistration).max(100),
  resume: z.array(Id).max(1_000).optional(),
});
export const ElicitFrame = z.strictObject({
  action: z.literal("elicit"),
  ref: Ref,
  session_id: Id,
  elicitation_id: Id.optional(),
  params: ElicitationParams,
  timeout_seconds: TimeoutSeconds.optional(),
});
export const CancelFrame = z.strictObject({ action: z.literal("cancel"), ref: Ref, elicitation_id: Id });
export const SubscribeFrame = z.strictObject({
  action: z.literal("subscribe"),
  ref: Ref,
  sessions: z.union([z.literal("*"), z.array(Id).min(1).max(100)]),
});
export const PingFrame = z.strictObject({ action: z.literal("ping"), ref: Ref });

// ---- Tokens ----
export const Role = z.enum(["runner", "human", "service"]);
export type Role = z.infer<typeof Role>;
export const Claims = z.object({ sub: z.string().min(1).max(256), tenant: Id, role: Role, exp: z.number() });
export type Claims = z.infer<typeof Claims>;

// ---- Timers (Scheduler input) ----
export const TimerInput = z.strictObject({
  tenant: Id,
  elicitation_id: Id.optional(),
  connection_id: z.string().min(1).max(256).optional(),
  round: z.number().int().min(1).optional(),
});
export type TimerInput = z.infer<typeof TimerInput>;
