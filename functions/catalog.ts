/**
 * The one list of Tollgate's functions: entry file, what triggers it, and exactly which AWS
 * actions it may call. CDK builds each Lambda, route, event source and IAM policy from this;
 * the local runtime routes HTTP requests, WebSocket frames, stream batches and due schedules
 * to the same handlers from it; test/iam.test.ts checks that every call a handler makes is
 * listed here.
 */
export type DynamoAction = "GetItem" | "BatchGetItem" | "Query" | "PutItem" | "UpdateItem" | "DeleteItem";

export type Trigger =
  | { kind: "http"; method: HttpMethod; path: string; public?: true }
  | { kind: "ws"; route: string }
  | { kind: "ws-authorizer" }
  | { kind: "stream" }
  | { kind: "timer"; timer: TimerName };

export type HttpMethod = "GET" | "PUT" | "POST" | "DELETE";

export type TimerName = "deadline" | "escalation" | "runnerGone" | "notify" | "reminder";

export interface FunctionSpec {
  /** Entry file, relative to the repository root. */
  entry: string;
  trigger: Trigger;
  /** DynamoDB actions on the table (and its indexes, for Query). */
  table: readonly DynamoAction[];
  /** Posts to WebSocket connections through the `@connections` API. */
  connections?: true;
  /**
   * Refuses a frame whose connection's token has expired: posts the error frame and closes the
   * connection (POST and DELETE on `@connections`). Every route built with `wsHandler`.
   */
  closesConnections?: true;
  /**
   * Creates and deletes one-time schedules of Tollgate's schedule group, of these timers: it gets
   * their functions' ARNs (only these, so two functions that schedule each other's timers never
   * make a cycle).
   */
  scheduler?: readonly TimerName[];
  /** Verifies bearer tokens (needs the JWT secret). */
  verifiesTokens?: true;
  /** Counts raises or verdicts against the per-token rate limits (needs the limits). */
  rateLimited?: true;
  /** Signs or verifies approval links (needs the JWT secret, from which their key is derived, and the approval page's address). */
  signsLinks?: true;
}

const http = (method: HttpMethod, path: string): Trigger => ({ kind: "http", method, path });
const ws = (route: string): Trigger => ({ kind: "ws", route });

// Each list is what the function's code paths call (test/iam.test.ts watches them run); nothing more.
export const functions = {
  wsAuthorizer: { entry: "functions/ws-authorizer.ts", trigger: { kind: "ws-authorizer" }, table: [], verifiesTokens: true },
  wsConnect: { entry: "functions/ws-connect.ts", trigger: ws("$connect"), table: ["PutItem"] },
  wsDisconnect: { entry: "functions/ws-disconnect.ts", trigger: ws("$disconnect"), table: ["UpdateItem"] },
  wsDefault: { entry: "functions/ws-default.ts", trigger: ws("$default"), table: [] },
  wsHello: { entry: "functions/ws-hello.ts", trigger: ws("hello"), table: ["GetItem", "Query", "PutItem", "UpdateItem", "DeleteItem"], connections: true, closesConnections: true },
  wsElicit: { entry: "functions/ws-elicit.ts", trigger: ws("elicit"), table: ["GetItem", "PutItem", "UpdateItem"], connections: true, rateLimited: true, closesConnections: true },
  wsCancel: { entry: "functions/ws-cancel.ts", trigger: ws("cancel"), table: ["GetItem", "UpdateItem", "DeleteItem"], closesConnections: true },
  wsSubscribe: { entry: "functions/ws-subscribe.ts", trigger: ws("subscribe"), table: ["BatchGetItem", "UpdateItem"], closesConnections: true },
  wsPing: { entry: "functions/ws-ping.ts", trigger: ws("ping"), table: [], closesConnections: true },

  httpHealth: { entry: "functions/http-health.ts", trigger: { kind: "http", method: "GET", path: "/healthz", public: true }, table: [] },
  httpOpenApi: { entry: "functions/http-openapi.ts", trigger: { kind: "http", method: "GET", path: "/openapi.json", public: true }, table: [] },
  httpPutSession: {
    entry: "functions/http-put-session.ts",
    trigger: http("PUT", "/v1/sessions/{id}"),
    // Query and BatchGetItem read the pending ids a session's item does not list (past its eighth, or raised before sessions listed theirs).
    table: ["GetItem", "BatchGetItem", "Query", "PutItem", "UpdateItem"],
    verifiesTokens: true,
  },
  httpListSessions: { entry: "functions/http-list-sessions.ts", trigger: http("GET", "/v1/sessions"), table: ["BatchGetItem", "Query", "UpdateItem"], verifiesTokens: true },
  httpGetSession: { entry: "functions/http-get-session.ts", trigger: http("GET", "/v1/sessions/{id}"), table: ["GetItem", "BatchGetItem", "Query"], verifiesTokens: true },
  httpPeekSession: { entry: "functions/http-peek-session.ts", trigger: http("GET", "/v1/sessions/{id}/peek"), table: ["GetItem", "BatchGetItem", "Query"], verifiesTokens: true },
  httpPostEvent: {
    entry: "functions/http-post-event.ts",
    trigger: http("POST", "/v1/sessions/{id}/events"),
    table: ["GetItem", "PutItem", "UpdateItem", "DeleteItem"],
    connections: true,
    verifiesTokens: true,
    rateLimited: true,
  },
  httpGetElicitation: { entry: "functions/http-get-elicitation.ts", trigger: http("GET", "/v1/elicitations/{id}"), table: ["GetItem"], verifiesTokens: true },
  httpShareLink: { entry: "functions/http-share-link.ts", trigger: http("POST", "/v1/elicitations/{id}/link"), table: ["GetItem"], verifiesTokens: true, signsLinks: true },
  httpGetLink: { entry: "functions/http-get-link.ts", trigger: http("GET", "/v1/link"), table: ["GetItem"], signsLinks: true },
  httpPostLinkVerdict: {
    entry: "functions/http-post-link-verdict.ts",
    trigger: http("POST", "/v1/link/verdict"),
    table: ["GetItem", "PutItem", "UpdateItem", "DeleteItem"],
    connections: true,
    rateLimited: true,
    signsLinks: true,
  },
  httpListHistory: { entry: "functions/http-list-history.ts", trigger: http("GET", "/v1/history"), table: ["Query"], verifiesTokens: true },
  httpCancelSession: {
    entry: "functions/http-cancel-session.ts",
    trigger: http("POST", "/v1/sessions/{id}/cancel"),
    table: ["GetItem", "BatchGetItem", "Query", "UpdateItem", "DeleteItem"],
    connections: true,
    verifiesTokens: true,
  },
  httpPutTarget: { entry: "functions/http-put-target.ts", trigger: http("PUT", "/v1/notification-targets/{id}"), table: ["UpdateItem"], verifiesTokens: true },
  httpListTargets: { entry: "functions/http-list-targets.ts", trigger: http("GET", "/v1/notification-targets"), table: ["Query"], verifiesTokens: true },
  httpGetTarget: { entry: "functions/http-get-target.ts", trigger: http("GET", "/v1/notification-targets/{id}"), table: ["GetItem"], verifiesTokens: true },
  httpDeleteTarget: { entry: "functions/http-delete-target.ts", trigger: http("DELETE", "/v1/notification-targets/{id}"), table: ["DeleteItem"], verifiesTokens: true },
  httpRotateTarget: { entry: "functions/http-rotate-target.ts", trigger: http("POST", "/v1/notification-targets/{id}/rotate"), table: ["GetItem", "UpdateItem"], verifiesTokens: true },
  httpPostMessage: {
    entry: "functions/http-post-message.ts",
    trigger: http("POST", "/v1/sessions/{id}/messages"),
    table: ["GetItem", "Query", "PutItem", "UpdateItem", "DeleteItem"],
    connections: true,
    verifiesTokens: true,
  },

  streams: {
    entry: "functions/streams.ts",
    trigger: { kind: "stream" },
    table: ["GetItem", "BatchGetItem", "Query", "PutItem", "UpdateItem", "DeleteItem"],
    connections: true,
    scheduler: ["deadline", "escalation", "runnerGone", "notify", "reminder"],
    signsLinks: true,
  },
  timerDeadline: { entry: "functions/timer-deadline.ts", trigger: { kind: "timer", timer: "deadline" }, table: ["GetItem", "UpdateItem", "DeleteItem"], connections: true },
  timerEscalation: { entry: "functions/timer-escalation.ts", trigger: { kind: "timer", timer: "escalation" }, table: ["GetItem", "PutItem", "UpdateItem", "DeleteItem"], connections: true },
  timerRunnerGone: {
    entry: "functions/timer-runner-gone.ts",
    trigger: { kind: "timer", timer: "runnerGone" },
    table: ["GetItem", "BatchGetItem", "Query", "UpdateItem", "DeleteItem"],
    connections: true,
  },
  /** One attempt of a notification delivery; it schedules the next one itself. */
  timerNotify: { entry: "functions/timer-notify.ts", trigger: { kind: "timer", timer: "notify" }, table: ["GetItem", "UpdateItem"], scheduler: ["notify"] },
  /** One round of a pending elicitation's reminders to one target; it schedules the next round itself. */
  timerReminder: { entry: "functions/timer-reminder.ts", trigger: { kind: "timer", timer: "reminder" }, table: ["GetItem", "PutItem"], scheduler: ["reminder", "notify"], signsLinks: true },
} as const satisfies Record<string, FunctionSpec>;

export type FunctionName = keyof typeof functions;

/** Reads the JWT secret: to verify tokens, or to derive the approval links' key from it. */
export const readsJwtSecret = (spec: FunctionSpec): boolean => Boolean(spec.verifiesTokens || spec.signsLinks);

/**
 * The item kinds whose new images the streams handler reacts to (functions/domain/reactions.ts). The
 * stream's event source mapping passes only these (Lambda's event filtering, which is not billed), and
 * the local poller filters the same: a batch of rate counters or pending rows alone invokes nothing.
 */
export const streamItemKinds = ["elicitation", "session", "connection"] as const;

/** The function each one-time schedule invokes, by timer. */
export const timerFunctions: Record<TimerName, FunctionName> = {
  deadline: "timerDeadline",
  escalation: "timerEscalation",
  runnerGone: "timerRunnerGone",
  notify: "timerNotify",
  reminder: "timerReminder",
};
