/**
 * The one list of Tollgate's functions: entry file, what triggers it, and exactly which AWS
 * actions it may call. CDK builds each Lambda, route, event source and IAM policy from this;
 * the local runtime routes HTTP requests, WebSocket frames, stream batches and due schedules
 * to the same handlers from it; test/iam.test.ts checks that every call a handler makes is
 * listed here.
 */
export type DynamoAction =
  | "GetItem"
  | "BatchGetItem"
  | "Query"
  | "PutItem"
  | "UpdateItem"
  | "DeleteItem"
  | "ConditionCheckItem";

export type Trigger =
  | { kind: "http"; method: "GET" | "PUT" | "POST"; path: string; public?: true }
  | { kind: "ws"; route: string }
  | { kind: "ws-authorizer" }
  | { kind: "stream" }
  | { kind: "timer"; timer: TimerName };

export type TimerName = "deadline" | "escalation" | "runnerGone";

export interface FunctionSpec {
  /** Entry file, relative to the repository root. */
  entry: string;
  trigger: Trigger;
  /** DynamoDB actions on the table (and its indexes, for Query). */
  table: readonly DynamoAction[];
  /** Posts to WebSocket connections through the `@connections` API. */
  connections?: true;
  /** Creates and deletes the one-time schedules of Tollgate's schedule group. */
  scheduler?: true;
  /** Verifies bearer tokens (needs the JWT secret). */
  verifiesTokens?: true;
  /** Counts raises or verdicts against the per-token rate limits (needs the limits). */
  rateLimited?: true;
}

const READ = ["GetItem", "BatchGetItem", "Query"] as const;
const WRITE = ["PutItem", "UpdateItem", "DeleteItem", "ConditionCheckItem"] as const;
const ALL = [...READ, ...WRITE] as const;

const http = (method: "GET" | "PUT" | "POST", path: string): Trigger => ({ kind: "http", method, path });
const ws = (route: string): Trigger => ({ kind: "ws", route });

export const functions = {
  wsAuthorizer: { entry: "functions/ws-authorizer.ts", trigger: { kind: "ws-authorizer" }, table: [], verifiesTokens: true },
  wsConnect: { entry: "functions/ws-connect.ts", trigger: ws("$connect"), table: ["PutItem"] },
  wsDisconnect: { entry: "functions/ws-disconnect.ts", trigger: ws("$disconnect"), table: ALL, scheduler: true },
  wsDefault: { entry: "functions/ws-default.ts", trigger: ws("$default"), table: [] },
  wsHello: { entry: "functions/ws-hello.ts", trigger: ws("hello"), table: ALL, connections: true },
  wsElicit: { entry: "functions/ws-elicit.ts", trigger: ws("elicit"), table: ALL, connections: true, rateLimited: true },
  wsCancel: { entry: "functions/ws-cancel.ts", trigger: ws("cancel"), table: ALL, connections: true },
  wsSubscribe: { entry: "functions/ws-subscribe.ts", trigger: ws("subscribe"), table: ["BatchGetItem", "PutItem", "UpdateItem"] },
  wsPing: { entry: "functions/ws-ping.ts", trigger: ws("ping"), table: [] },

  httpHealth: { entry: "functions/http-health.ts", trigger: { kind: "http", method: "GET", path: "/healthz", public: true }, table: [] },
  httpPutSession: { entry: "functions/http-put-session.ts", trigger: http("PUT", "/v1/sessions/{id}"), table: ["GetItem", "PutItem", "UpdateItem"], verifiesTokens: true },
  httpListSessions: { entry: "functions/http-list-sessions.ts", trigger: http("GET", "/v1/sessions"), table: READ, verifiesTokens: true },
  httpGetSession: { entry: "functions/http-get-session.ts", trigger: http("GET", "/v1/sessions/{id}"), table: READ, verifiesTokens: true },
  httpPeekSession: { entry: "functions/http-peek-session.ts", trigger: http("GET", "/v1/sessions/{id}/peek"), table: READ, verifiesTokens: true },
  httpPostEvent: { entry: "functions/http-post-event.ts", trigger: http("POST", "/v1/sessions/{id}/events"), table: ALL, connections: true, verifiesTokens: true, rateLimited: true },
  httpGetElicitation: { entry: "functions/http-get-elicitation.ts", trigger: http("GET", "/v1/elicitations/{id}"), table: READ, verifiesTokens: true },
  httpCancelSession: { entry: "functions/http-cancel-session.ts", trigger: http("POST", "/v1/sessions/{id}/cancel"), table: ALL, connections: true, verifiesTokens: true },
  httpPostMessage: { entry: "functions/http-post-message.ts", trigger: http("POST", "/v1/sessions/{id}/messages"), table: ALL, connections: true, verifiesTokens: true },

  streams: { entry: "functions/streams.ts", trigger: { kind: "stream" }, table: ALL, connections: true, scheduler: true },
  timerDeadline: { entry: "functions/timer-deadline.ts", trigger: { kind: "timer", timer: "deadline" }, table: ALL, connections: true },
  timerEscalation: { entry: "functions/timer-escalation.ts", trigger: { kind: "timer", timer: "escalation" }, table: ALL, connections: true },
  timerRunnerGone: { entry: "functions/timer-runner-gone.ts", trigger: { kind: "timer", timer: "runnerGone" }, table: ALL, connections: true },
} as const satisfies Record<string, FunctionSpec>;

export type FunctionName = keyof typeof functions;

/** The function each one-time schedule invokes, by timer. */
export const timerFunctions: Record<TimerName, FunctionName> = {
  deadline: "timerDeadline",
  escalation: "timerEscalation",
  runnerGone: "timerRunnerGone",
};
