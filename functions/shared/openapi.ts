/**
 * The OpenAPI 3.1 description of the HTTP API, generated from the zod schemas (requests in
 * schemas.ts, replies and server frames in replies.ts) with zod's own JSON Schema output, and from
 * the catalog's routes. `GET /openapi.json` serves it; `npm run openapi` writes docs/openapi.json.
 * The WebSocket frames are JSON Schemas among the components, named in `x-websocket` (docs/api.md says why).
 */
import * as z from "./zod.js";
import { permissions, type Operation as Permission } from "./permissions.js";
import { functions, type FunctionName } from "../catalog.js";
import { errorStatus, type ErrorCode } from "./errors.js";
import * as replies from "./replies.js";
import * as requests from "./schemas.js";
import * as targets from "./notification-schemas.js";

const ClientFrame = z.discriminatedUnion("action", [requests.HelloFrame, requests.ElicitFrame, requests.CancelFrame, requests.SubscribeFrame, requests.PingFrame]);

/** Every named schema; a schema used inside another is a `$ref` to its component. */
const components = {
  Id: requests.Id,
  ElicitationParams: requests.ElicitationParams,
  PutSessionBody: requests.PutSessionBody,
  RequestEvent: requests.RequestEvent,
  ApprovalEvent: requests.ApprovalEvent,
  RunnerResolvedEvent: requests.RunnerResolvedEvent,
  PostEventBody: requests.PostEventBody,
  CancelSessionBody: requests.CancelSessionBody,
  PostMessageBody: requests.PostMessageBody,
  Verdict: replies.Verdict,
  RequestEventRecord: replies.RequestEventRecord,
  ResolvedEventRecord: replies.ResolvedEventRecord,
  BadgeEvent: replies.BadgeEvent,
  Health: replies.Health,
  SessionSummary: replies.SessionSummary,
  SessionPage: replies.SessionPage,
  SessionSnapshot: replies.SessionSnapshot,
  PeekItems: replies.PeekItems,
  Raised: replies.Raised,
  Answered: replies.Answered,
  GaveUp: replies.GaveUp,
  ElicitationRead: replies.ElicitationRead,
  ShareLinkBody: requests.ShareLinkBody,
  LinkVerdictBody: requests.LinkVerdictBody,
  ApprovalLink: replies.ApprovalLink,
  LinkRead: replies.LinkRead,
  HistoryEntry: replies.HistoryEntry,
  HistoryPage: replies.HistoryPage,
  Cancelled: replies.Cancelled,
  MessageStatus: replies.MessageStatus,
  ErrorReply: replies.ErrorReply,
  PutTargetBody: targets.PutTargetBody,
  NotificationTarget: targets.NotificationTarget,
  TargetList: targets.TargetList,
  TargetDeleted: targets.TargetDeleted,
  HelloFrame: requests.HelloFrame,
  ElicitFrame: requests.ElicitFrame,
  CancelFrame: requests.CancelFrame,
  SubscribeFrame: requests.SubscribeFrame,
  PingFrame: requests.PingFrame,
  ClientFrame,
  HelloOkFrame: replies.HelloOkFrame,
  ParkedFrame: replies.ParkedFrame,
  VerdictFrame: replies.VerdictFrame,
  MessageFrame: replies.MessageFrame,
  SubscribedFrame: replies.SubscribedFrame,
  PongFrame: replies.PongFrame,
  ErrorFrame: replies.ErrorFrame,
  ServerFrame: replies.ServerFrame,
} satisfies Record<string, z.core.$ZodType>;
type Component = keyof typeof components;

interface Operation {
  summary: string;
  /** The permissions (permissions.ts) the call needs: its roles follow from them. */
  needs?: Permission[];
  body?: Component;
  query?: z.ZodMiniObject;
  /** Success status -> reply body. */
  replies: Record<number, { description: string; schema?: Component | Component[]; jsonl?: Component; headers?: Record<string, { description: string; schema: object }> }>;
  errors?: ErrorCode[];
}

/** What every call with a token may answer; a call with a body may also be `payload_too_large` (over 64 KiB). */
const READ: ErrorCode[] = ["bad_request", "unauthorized", "forbidden", "not_found"];
const WRITE: ErrorCode[] = [...READ, "payload_too_large"];

/** One per http function of the catalog (the catalog's trigger types do not tell them apart, so it is checked as it is generated). */
const operations: Partial<Record<FunctionName, Operation>> = {
  httpHealth: { summary: "Liveness: anyone, no token", replies: { 200: { description: "Tollgate answers", schema: "Health" } } },
  httpOpenApi: { summary: "This description of the HTTP API: anyone, no token", replies: { 200: { description: "The OpenAPI 3.1 document" } } },
  httpPutSession: {
    summary: "Create or update a session; the parent must exist in the tenant, a cycle or a change of parent is a conflict",
    needs: ["registerSession"],
    body: "PutSessionBody",
    replies: { 200: { description: "The session", schema: "SessionSummary" } },
    errors: [...WRITE, "conflict"],
  },
  httpListSessions: {
    summary: "A page of the tenant's sessions, the sessions named by `ids`, or only those awaiting approval (`pending=true`)",
    needs: ["read"],
    query: requests.ListSessionsQuery,
    replies: { 200: { description: "Sessions in id order", schema: "SessionPage" } },
    errors: ["bad_request", "unauthorized", "forbidden"],
  },
  httpGetSession: {
    summary: "The session with its own and every descendant's pending request events, oldest first",
    needs: ["read"],
    replies: { 200: { description: "The session's snapshot", schema: "SessionSnapshot" } },
    errors: READ,
  },
  httpPeekSession: {
    summary: "Compact pending items of a session, for a parent agent",
    needs: ["peek"],
    replies: { 200: { description: "Pending items", schema: "PeekItems" } },
    errors: READ,
  },
  httpPostEvent: {
    summary: "Raise an elicitation (runner), give its verdict (human), or give up waiting on it (runner)",
    needs: ["raise", "answer", "cancel"],
    body: "PostEventBody",
    replies: {
      200: { description: "Raised before with the same params, the verdict given (or the same verdict again), or given up", schema: ["Raised", "Answered", "GaveUp"] },
      201: { description: "Raised", schema: "Raised" },
    },
    errors: [...WRITE, "conflict", "rate_limited"],
  },
  httpGetElicitation: {
    summary: "One elicitation, pending or resolved, with its verdict once resolved",
    needs: ["read"],
    replies: { 200: { description: "The elicitation", schema: "ElicitationRead" } },
    errors: READ,
  },
  httpShareLink: {
    summary: "An approval link for this pending elicitation, to share by hand: whoever holds it may read this one elicitation and give it one verdict, without signing in, until its deadline",
    needs: ["shareLink"],
    body: "ShareLinkBody",
    replies: { 201: { description: "The link", schema: "ApprovalLink" } },
    errors: [...WRITE, "conflict"],
  },
  httpGetLink: {
    summary: "The one elicitation the approval link (the bearer credential) names; once resolved, its outcome without the form's content",
    replies: { 200: { description: "The elicitation", schema: "LinkRead" } },
    errors: ["unauthorized"],
  },
  httpPostLinkVerdict: {
    summary: 'The verdict of the approval link\'s holder on its one elicitation, recorded with `via: "link"`',
    body: "LinkVerdictBody",
    replies: { 200: { description: "The verdict given (or the same verdict again)", schema: "Answered" } },
    errors: ["bad_request", "unauthorized", "payload_too_large", "conflict", "rate_limited"],
  },
  httpListHistory: {
    summary:
      "The tenant's decisions, newest first: each request with its verdict, who gave it, how it came and how long it took. `since` (inclusive) and `until` (exclusive) bound `resolved_at`; a filtered page may hold fewer than `limit` items. `format=jsonl`: the page as JSON lines, its next cursor in the `x-next-cursor` header. `not_found` in a deployment that keeps no history (`TOLLGATE_HISTORY=off`)",
    needs: ["read"],
    query: requests.HistoryQuery,
    replies: {
      200: {
        description: "Decisions, newest first",
        schema: "HistoryPage",
        jsonl: "HistoryEntry",
        headers: { [requests.NEXT_CURSOR_HEADER]: { description: "With `format=jsonl`, on every page but the last: the next page's `cursor`", schema: { type: "string" } } },
      },
    },
    errors: ["bad_request", "unauthorized", "forbidden", "not_found"],
  },
  httpCancelSession: {
    summary: "Cancel every pending elicitation of the session, and of its descendants if asked",
    needs: ["cancel"],
    body: "CancelSessionBody",
    replies: { 200: { description: "How many were cancelled", schema: "Cancelled" } },
    errors: WRITE,
  },
  httpPutTarget: {
    summary: "Create or change a notification target (webhook or Slack); a webhook's signing secret is in the reply that created it, never again; a change enables a disabled target",
    needs: ["manageTargets"],
    body: "PutTargetBody",
    replies: { 200: { description: "Changed", schema: "NotificationTarget" }, 201: { description: "Created, with `secret` for a webhook", schema: "NotificationTarget" } },
    errors: ["bad_request", "unauthorized", "forbidden", "payload_too_large", "conflict"],
  },
  httpListTargets: {
    summary: "The tenant's notification targets",
    needs: ["manageTargets"],
    replies: { 200: { description: "Every target", schema: "TargetList" } },
    errors: ["unauthorized", "forbidden"],
  },
  httpGetTarget: {
    summary: "One notification target: why it is disabled, if it is, and its latest delivery attempts",
    needs: ["manageTargets"],
    replies: { 200: { description: "The target", schema: "NotificationTarget" } },
    errors: READ,
  },
  httpDeleteTarget: {
    summary: "Delete a notification target: nothing more goes to it",
    needs: ["manageTargets"],
    replies: { 200: { description: "Deleted", schema: "TargetDeleted" } },
    errors: READ,
  },
  httpRotateTarget: {
    summary: "A new signing secret for a webhook target, in this reply only",
    needs: ["manageTargets"],
    replies: { 200: { description: "The target with its new `secret`", schema: "NotificationTarget" } },
    errors: [...READ, "conflict"],
  },
  httpPostMessage: {
    summary: "Send the session's runner a message: held while it awaits an approval, queued while no runner is connected",
    needs: ["sendMessage"],
    body: "PostMessageBody",
    replies: {
      200: { description: "Delivered, or queued for the runner's next hello", schema: "MessageStatus" },
      202: { description: "Held until no approval is pending", schema: "MessageStatus" },
    },
    errors: WRITE,
  },
};

const ref = (name: Component) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: object) => ({ "application/json": { schema } });

function componentSchemas(): Record<string, object> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(components)) registry.add(schema, { id });
  const out = z.toJSONSchema(registry, { uri: (id) => `#/components/schemas/${id}`, unrepresentable: "any" });
  return Object.fromEntries(Object.entries(out.schemas).map(([id, { $id: _id, $schema: _schema, ...schema }]) => [id, schema]));
}

function parameters(path: string, query?: z.ZodMiniObject) {
  const inPath = [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({ name, in: "path", required: true, schema: ref("Id") }));
  const inQuery = Object.entries(query?.shape ?? {}).map(([name, schema]) => {
    const { $schema: _schema, ...s } = z.toJSONSchema(schema as z.core.$ZodType, { io: "input" });
    return { name, in: "query", required: false, schema: s };
  });
  return [...inPath, ...inQuery];
}

function errorResponses(codes: ErrorCode[]) {
  return Object.fromEntries(
    codes.map((code) => [
      String(errorStatus[code]),
      {
        description: `\`${code}\``,
        ...(code === "rate_limited" ? { headers: { "retry-after": { description: "Seconds until a retry may pass", schema: { type: "integer", minimum: 1 } } } } : {}),
        content: json(ref("ErrorReply")),
      },
    ]),
  );
}

/** A reply body: one component, one of several (one per kind of request), or any object. */
const replySchema = (schema?: Component | Component[]) => (Array.isArray(schema) ? { oneOf: schema.map(ref) } : schema ? ref(schema) : { type: "object" });

/** A reply that may also come as JSON lines: each line is one `jsonl` value. */
const jsonLines = (schema?: Component) => (schema ? { "application/x-ndjson": { itemSchema: ref(schema) } } : {});

const successResponses = (op: Operation) =>
  Object.fromEntries(
    Object.entries(op.replies).map(([status, reply]) => [
      status,
      { description: reply.description, ...(reply.headers ? { headers: reply.headers } : {}), content: { ...json(replySchema(reply.schema)), ...jsonLines(reply.jsonl) } },
    ]),
  );

function operation(name: FunctionName, path: string) {
  const op = operations[name];
  if (!op) throw new Error(`the catalog's ${name} has no OpenAPI operation`);
  const roles = [...new Set((op.needs ?? []).flatMap((p) => permissions[p]))];
  return {
    operationId: name,
    summary: op.summary,
    ...(roles.length > 0 ? { description: `Roles: ${roles.join(", ")}.` } : {}),
    security: "verifiesTokens" in functions[name] ? [{ bearer: [] }] : "signsLinks" in functions[name] ? [{ approvalLink: [] }] : [],
    ...(parameters(path, op.query).length > 0 ? { parameters: parameters(path, op.query) } : {}),
    // No body reads as `{}`: the body is required only where `{}` would not do.
    ...(op.body ? { requestBody: { required: !components[op.body].safeParse({}).success, content: json(ref(op.body)) } } : {}),
    responses: { ...successResponses(op), ...errorResponses(op.errors ?? []) },
  };
}

function paths() {
  const out: Record<string, Record<string, object>> = {};
  for (const [name, spec] of Object.entries(functions)) {
    if (spec.trigger.kind !== "http") continue;
    const { method, path } = spec.trigger;
    (out[path] ??= {})[method.toLowerCase()] = operation(name as FunctionName, path);
  }
  return out;
}

export function openApiDocument() {
  return {
    openapi: "3.1.0",
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    info: {
      title: "Tollgate",
      version: "1",
      summary: "Human-in-the-loop control plane for AI agents",
      description: 'The HTTP API of Tollgate\'s wire protocol v1 (docs/protocol.md). Errors are `{"error":{"code","message"}}`; a refused request changes nothing.',
      license: { name: "Apache-2.0", identifier: "Apache-2.0" },
    },
    servers: [
      { url: "http://127.0.0.1:4000", description: "The local runtime (`npm start`)" },
      { url: "https://{apiId}.execute-api.{region}.amazonaws.com", description: "A deployment's HttpUrl", variables: { apiId: { default: "api-id" }, region: { default: "us-east-1" } } },
    ],
    paths: paths(),
    components: {
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT", description: "Claims: sub, tenant, role (runner, human or service), exp" },
        approvalLink: { type: "http", scheme: "bearer", description: "An approval link's token (`POST /v1/elicitations/{id}/link`, or a notification's `link`): only the /v1/link routes take it" },
      },
      schemas: componentSchemas(),
    },
    "x-websocket": {
      path: "/ws",
      description: "Client frames carry an `action` and may carry a `ref` that the direct reply echoes. The connection stays open after an error frame.",
      clientFrame: ref("ClientFrame"),
      serverFrame: ref("ServerFrame"),
      replies: { hello: ref("HelloOkFrame"), elicit: ref("ParkedFrame"), cancel: ref("VerdictFrame"), subscribe: ref("SubscribedFrame"), ping: ref("PongFrame") },
    },
  };
}

/** The document as `npm run openapi` writes it and `GET /openapi.json` serves it. */
export const openApiText = () => `${JSON.stringify(openApiDocument(), null, 2)}\n`;
