/**
 * API Gateway's WebSocket API at `/ws` and its `@connections` management API, as strict as AWS:
 * `$connect` with its request authorizer, route selection on `action`, `$default`, `$disconnect`;
 * a frame over 32 KB or a message over 128 KB closes the socket with 1009; a connection idle for
 * 10 minutes or open for 2 hours is closed with 1001 (both on the runtime's clock); a post over
 * 128 KB is refused `PayloadTooLargeException` and one to a closed connection `GoneException` (410).
 */
import { randomBytes, randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, WebSocket } from "ws";
import { functions, type FunctionName } from "../functions/catalog.js";
import type { Clock } from "./clock.js";
import { FRAME_LIMIT_BYTES, MESSAGE_LIMIT_BYTES, watchFrameSizes } from "./frame-limit.js";
import { openFilesWatch } from "./open-files.js";
import type { Invoke } from "./lambda.js";

export const STAGE = "live";
export const IDLE_TIMEOUT_MS = 10 * 60_000;
export const CONNECTION_LIFETIME_MS = 2 * 3_600_000;
/** API Gateway's close codes: 1009 for an over-size frame or message, 1001 when it ends a connection. */
const TOO_BIG = 1009;
const GOING_AWAY = 1001;

interface Live {
  socket: WebSocket;
  authorizer: Record<string, unknown>;
  connectedAt: number;
  lastActiveAt: number;
  sourceIp: string;
  userAgent: string;
  /** Cancels the idle and lifetime alarms. */
  quiet: () => void;
}

const wsRoutes = new Map<string, FunctionName>(Object.entries(functions).flatMap(([name, spec]) => (spec.trigger.kind === "ws" ? [[spec.trigger.route, name as FunctionName]] : [])));
const authorizerName = Object.entries(functions).find(([, spec]) => spec.trigger.kind === "ws-authorizer")![0] as FunctionName;

export function flatHeaders(req: IncomingMessage): Record<string, string> {
  return Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k.toLowerCase(), Array.isArray(v) ? v.join(",") : (v ?? "")]));
}

export function queryOf(url: URL): Record<string, string> | undefined {
  if ([...url.searchParams.keys()].length === 0) return undefined;
  const query: Record<string, string> = Object.create(null); // a `__proto__` parameter stays a key, as in the JSON API Gateway sends
  for (const [k, v] of url.searchParams) query[k] = k in query ? `${query[k]},${v}` : v;
  return query;
}

export function reply(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(typeof body === "string" ? body : JSON.stringify(body));
}

export const signed = (req: IncomingMessage) => (req.headers.authorization ?? "").startsWith("AWS4-HMAC-SHA256");
const gone = (res: ServerResponse) => reply(res, 410, { message: "Gone" }, { "x-amzn-errortype": "GoneException" });

export function createWebSockets(options: { invoke: Invoke; clock: Clock; log: (line: string) => void }) {
  const { invoke, clock, log } = options;
  const live = new Map<string, Live>();
  /** Set once the gateway goes away: a client that comes back meanwhile is refused at the upgrade, not let in to a runtime that is stopping. */
  let closing = false;
  const wss = new WebSocketServer({ noServer: true, maxPayload: MESSAGE_LIMIT_BYTES });
  /** Route replies held back until released: lets a test deliver a push before the reply it raced. */
  const held = new Map<string, Promise<void>>();
  const openFiles = openFilesWatch(log);

  function wsContext(connectionId: string, routeKey: string, eventType: string, authorizer: Record<string, unknown>, extra: object = {}) {
    const now = clock.now();
    return {
      routeKey,
      eventType,
      connectionId,
      authorizer,
      messageId: randomBytes(6).toString("base64url"),
      requestId: randomUUID(),
      domainName: "127.0.0.1",
      stage: STAGE,
      apiId: "local",
      requestTimeEpoch: now,
      connectedAt: live.get(connectionId)?.connectedAt ?? now,
      ...extra,
    };
  }

  /** Close after 10 idle minutes or 2 hours in all; the returned function marks the client active. */
  function watchTime(connection: Live): () => void {
    const close = () => connection.socket.close(GOING_AWAY, "Going away");
    const lifetime = clock.at(connection.connectedAt + CONNECTION_LIFETIME_MS, close);
    let idle: () => void = () => {};
    const active = () => {
      idle();
      connection.lastActiveAt = clock.now();
      idle = clock.at(connection.lastActiveAt + IDLE_TIMEOUT_MS, close);
    };
    active();
    connection.quiet = () => (idle(), lifetime());
    return active;
  }

  /** `POST|GET|DELETE /@connections/{id}` as the real management API answers them. */
  function onConnectionsApi(req: IncomingMessage, res: ServerResponse, url: URL, body: Buffer) {
    if (!signed(req)) return reply(res, 403, { message: "Missing Authentication Token" });
    const connectionId = decodeURIComponent(url.pathname.slice("/@connections/".length));
    const connection = live.get(connectionId);
    if (!connection || connection.socket.readyState !== WebSocket.OPEN) return gone(res);
    if (req.method === "GET") {
      const identity = { sourceIp: connection.sourceIp, userAgent: connection.userAgent };
      return reply(res, 200, { connectedAt: new Date(connection.connectedAt).toISOString(), lastActiveAt: new Date(connection.lastActiveAt).toISOString(), identity });
    }
    if (req.method === "DELETE") {
      connection.socket.close(GOING_AWAY, "Going away");
      res.writeHead(204).end();
      return;
    }
    if (body.length > MESSAGE_LIMIT_BYTES) return reply(res, 413, { message: "Request entity too large" }, { "x-amzn-errortype": "PayloadTooLargeException" });
    connection.socket.send(body.toString("utf8"), (error) => (error ? gone(res) : reply(res, 200, "")));
  }

  async function authorize(req: IncomingMessage, connectionId: string): Promise<Record<string, unknown> | "401 Unauthorized" | "403 Forbidden"> {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const headers = flatHeaders(req);
    const queryStringParameters = queryOf(url);
    let authorizer: Record<string, unknown>;
    try {
      const result = await invoke<{ principalId: string; policyDocument?: { Statement?: { Effect?: string }[] }; context?: Record<string, unknown> }>(authorizerName, {
        type: "REQUEST",
        methodArn: `arn:aws:execute-api:us-east-1:000000000000:local/${STAGE}/$connect`,
        headers,
        queryStringParameters,
        requestContext: wsContext(connectionId, "$connect", "CONNECT", {}),
      });
      if (result.policyDocument?.Statement?.some((statement) => statement.Effect === "Deny")) return "403 Forbidden";
      authorizer = { principalId: result.principalId, ...result.context };
    } catch {
      return "401 Unauthorized";
    }
    const connected = await invoke<{ statusCode?: number }>(wsRoutes.get("$connect")!, {
      headers,
      queryStringParameters,
      isBase64Encoded: false,
      requestContext: wsContext(connectionId, "$connect", "CONNECT", authorizer),
    }).catch(() => ({ statusCode: 500 }));
    return (connected?.statusCode ?? 200) >= 300 ? "403 Forbidden" : authorizer;
  }

  async function onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer) {
    const refuse = (status: string) => socket.end(`HTTP/1.1 ${status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
    if (closing) return refuse("503 Service Unavailable");
    // Shaped as API Gateway's are (`L0SM9cOFvHcCIhw=`): 15 of `A-Z a-z 0-9 - _`, then `=`.
    const connectionId = `${randomBytes(11).toString("base64url")}=`;
    const authorizer = await authorize(req, connectionId);
    if (typeof authorizer === "string") return refuse(authorizer);
    if (closing) return refuse("503 Service Unavailable");
    let tooBig = false;
    let opened: WebSocket | undefined;
    // Read before ws's own reader (both hear every chunk): a frame's header comes before its payload, so it is closed before it could be delivered.
    watchFrameSizes(socket, Buffer.alloc(0), () => {
      tooBig = true;
      opened?.close(TOO_BIG, `Frame larger than ${FRAME_LIMIT_BYTES} bytes`);
    });
    wss.handleUpgrade(req, socket, head, (ws) => {
      opened = ws;
      const now = clock.now();
      const connection: Live = {
        socket: ws,
        authorizer,
        connectedAt: now,
        lastActiveAt: now,
        sourceIp: req.socket.remoteAddress ?? "",
        userAgent: req.headers["user-agent"] ?? "",
        quiet: () => undefined,
      };
      live.set(connectionId, connection);
      openFiles(live.size);
      const active = watchTime(connection);
      ws.on("error", () => undefined); // a message over the limit: ws has closed the socket with 1009, as API Gateway does
      ws.on("message", (data) => {
        if (tooBig) return;
        active();
        void onFrame(connectionId, data.toString()).catch((e) => log(`frame: ${(e as Error).message}`));
      });
      ws.on("close", (code, reason) => void onClose(connectionId, code, reason.toString()).catch((e) => log(`disconnect: ${(e as Error).message}`)));
    });
  }

  async function onFrame(connectionId: string, text: string) {
    const connection = live.get(connectionId);
    if (!connection) return;
    let action: unknown;
    try {
      action = (JSON.parse(text) as { action?: unknown })?.action;
    } catch {
      action = undefined;
    }
    const routeKey = typeof action === "string" && !action.startsWith("$") && wsRoutes.has(action) ? action : "$default";
    const result = await invoke<{ body?: string } | undefined>(wsRoutes.get(routeKey)!, {
      body: text,
      isBase64Encoded: false,
      requestContext: wsContext(connectionId, routeKey, "MESSAGE", connection.authorizer),
    });
    await held.get(routeKey);
    if (result?.body && connection.socket.readyState === WebSocket.OPEN) connection.socket.send(result.body);
  }

  async function onClose(connectionId: string, code: number, reason: string) {
    const connection = live.get(connectionId);
    if (!connection) return;
    live.delete(connectionId);
    connection.quiet();
    await invoke(wsRoutes.get("$disconnect")!, {
      isBase64Encoded: false,
      requestContext: wsContext(connectionId, "$disconnect", "DISCONNECT", connection.authorizer, { disconnectStatusCode: code, disconnectReason: reason }),
    });
  }

  return {
    onConnectionsApi,
    onUpgrade,
    /** Hold the replies of one route until the returned function is called (API Gateway does not order a reply and a push). */
    holdReplies(routeKey: string): () => void {
      let release!: () => void;
      held.set(routeKey, new Promise<void>((done) => (release = done)));
      return () => {
        held.delete(routeKey);
        release();
      };
    },
    /** Disconnect every client, as API Gateway going away would: their reconnect grace starts. */
    async closeAll() {
      closing = true;
      await Promise.allSettled(
        [...live.entries()].map(([id, { socket }]) => {
          socket.terminate();
          return onClose(id, 1001, "going away");
        }),
      );
    },
  };
}
