/**
 * API Gateway's stand-in on one port: the HTTP API (payload format 2.0 events), the WebSocket API
 * at `/ws` ($connect with its request authorizer, route selection on `action`, $default,
 * $disconnect), the `@connections` management API that the real SDK client calls, the Scheduler
 * REST stand-in, and the inbox's static files.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { extname } from "node:path";
import type { Duplex } from "node:stream";
import { WebSocketServer, WebSocket } from "ws";
import { functions, type FunctionName } from "../functions/catalog.js";
import { invoke } from "./lambda.js";
import { inboxFile } from "./inbox-files.js";
import type { LocalScheduler } from "./scheduler.js";

interface HttpRoute {
  name: FunctionName;
  method: string;
  template: string;
  pattern: RegExp;
  params: string[];
}

interface Live {
  socket: WebSocket;
  authorizer: Record<string, unknown>;
  connectedAt: number;
  lastActiveAt: number;
  sourceIp: string;
}

const STAGE = "live";
const contentTypes: Record<string, string> = { ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8", ".svg": "image/svg+xml", ".json": "application/json" };

function httpRoutes(): HttpRoute[] {
  return Object.entries(functions).flatMap(([name, spec]) => {
    if (spec.trigger.kind !== "http") return [];
    const params: string[] = [];
    const source = spec.trigger.path.replace(/\{(\w+)\}/g, (_, param: string) => {
      params.push(param);
      return "([^/]+)";
    });
    return [{ name: name as FunctionName, method: spec.trigger.method, template: spec.trigger.path, pattern: new RegExp(`^${source}$`), params }];
  });
}

const wsRoutes = new Map<string, FunctionName>(
  Object.entries(functions).flatMap(([name, spec]) => (spec.trigger.kind === "ws" ? [[spec.trigger.route, name as FunctionName]] : [])),
);
const authorizerName = Object.entries(functions).find(([, spec]) => spec.trigger.kind === "ws-authorizer")![0] as FunctionName;

const readBody = (req: IncomingMessage) =>
  new Promise<Buffer>((done, fail) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => done(Buffer.concat(chunks)));
    req.on("error", fail);
  });

function flatHeaders(req: IncomingMessage): Record<string, string> {
  return Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k.toLowerCase(), Array.isArray(v) ? v.join(",") : (v ?? "")]));
}

function queryOf(url: URL): Record<string, string> | undefined {
  if ([...url.searchParams.keys()].length === 0) return undefined;
  const query: Record<string, string> = Object.create(null); // a `__proto__` parameter stays a key, as in the JSON API Gateway sends
  for (const [k, v] of url.searchParams) query[k] = k in query ? `${query[k]},${v}` : v;
  return query;
}

function reply(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(typeof body === "string" ? body : JSON.stringify(body));
}

const signed = (req: IncomingMessage) => (req.headers.authorization ?? "").startsWith("AWS4-HMAC-SHA256");

export function createGateway(options: { scheduler: LocalScheduler; log: (line: string) => void }) {
  const routes = httpRoutes();
  const live = new Map<string, Live>();
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  let server: Server;

  function wsContext(connectionId: string, routeKey: string, eventType: string, authorizer: Record<string, unknown>, extra: object = {}) {
    const now = Date.now();
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

  async function onHttp(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const body = await readBody(req);
    if (url.pathname.startsWith("/@connections/")) return onConnectionsApi(req, res, url, body);
    if (url.pathname.startsWith("/schedules/")) {
      if (!signed(req)) return reply(res, 403, { message: "Missing Authentication Token" });
      if (await options.scheduler.handle(req, res, url, body.toString())) return;
    }
    const route = routes.find((r) => r.method === req.method && r.pattern.test(url.pathname));
    if (route) return onRoute(route, req, res, url, body);
    if (req.method === "GET") return onStatic(res, url.pathname);
    reply(res, 404, { error: { code: "not_found", message: "no such route" } });
  }

  async function onRoute(route: HttpRoute, req: IncomingMessage, res: ServerResponse, url: URL, body: Buffer) {
    const match = route.pattern.exec(url.pathname)!;
    let pathParameters: Record<string, string>;
    try {
      pathParameters = Object.fromEntries(route.params.map((p, i) => [p, decodeURIComponent(match[i + 1])]));
    } catch {
      return reply(res, 400, { error: { code: "bad_request", message: "path is not valid" } });
    }
    const headers = flatHeaders(req);
    const routeKey = `${route.method} ${route.template}`;
    const event = {
      version: "2.0",
      routeKey,
      rawPath: url.pathname,
      rawQueryString: url.search.slice(1),
      headers,
      queryStringParameters: queryOf(url),
      pathParameters: route.params.length > 0 ? pathParameters : undefined,
      requestContext: {
        accountId: "000000000000",
        apiId: "local",
        domainName: headers.host ?? "127.0.0.1",
        http: { method: route.method, path: url.pathname, protocol: "HTTP/1.1", sourceIp: req.socket.remoteAddress ?? "", userAgent: headers["user-agent"] ?? "" },
        requestId: randomUUID(),
        routeKey,
        stage: "$default",
        time: new Date().toISOString(),
        timeEpoch: Date.now(),
      },
      body: body.length > 0 ? body.toString("utf8") : undefined,
      isBase64Encoded: false,
    };
    const result = await invoke<{ statusCode?: number; headers?: Record<string, string>; body?: string }>(route.name, event);
    reply(res, result?.statusCode ?? 200, result?.body ?? "", result?.headers ?? {});
  }

  async function onStatic(res: ServerResponse, pathname: string) {
    const file = inboxFile(pathname);
    if (!file) return reply(res, 404, { error: { code: "not_found", message: "not found" } });
    try {
      const content = await readFile(file);
      res.writeHead(200, { "content-type": contentTypes[extname(file)] ?? "application/octet-stream" });
      res.end(content);
    } catch {
      reply(res, 404, { error: { code: "not_found", message: "not found" } });
    }
  }

  /** `POST|GET|DELETE /@connections/{id}` as the real management API answers them (410 when gone). */
  async function onConnectionsApi(req: IncomingMessage, res: ServerResponse, url: URL, body: Buffer) {
    if (!signed(req)) return reply(res, 403, { message: "Missing Authentication Token" });
    const connectionId = decodeURIComponent(url.pathname.slice("/@connections/".length));
    const connection = live.get(connectionId);
    if (!connection || connection.socket.readyState !== WebSocket.OPEN) {
      return reply(res, 410, { message: "Gone" }, { "x-amzn-errortype": "GoneException" });
    }
    if (req.method === "GET") {
      return reply(res, 200, { ConnectedAt: new Date(connection.connectedAt).toISOString(), LastActiveAt: new Date(connection.lastActiveAt).toISOString(), Identity: { SourceIp: connection.sourceIp } });
    }
    if (req.method === "DELETE") {
      connection.socket.close(1000);
      res.writeHead(204).end();
      return;
    }
    connection.socket.send(body.toString("utf8"), (error) => (error ? reply(res, 410, { message: "Gone" }, { "x-amzn-errortype": "GoneException" }) : reply(res, 200, "")));
  }

  async function onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer) {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname !== "/ws") return socket.destroy();
    const connectionId = randomBytes(9).toString("base64url");
    const headers = flatHeaders(req);
    const queryStringParameters = queryOf(url);
    const refuse = (status: string) => {
      socket.end(`HTTP/1.1 ${status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
    };
    let authorizer: Record<string, unknown>;
    try {
      const result = await invoke<{ principalId: string; policyDocument?: { Statement?: { Effect?: string }[] }; context?: Record<string, unknown> }>(authorizerName, {
        type: "REQUEST",
        methodArn: `arn:aws:execute-api:us-east-1:000000000000:local/${STAGE}/$connect`,
        headers,
        queryStringParameters,
        requestContext: wsContext(connectionId, "$connect", "CONNECT", {}),
      });
      if (result.policyDocument?.Statement?.some((statement) => statement.Effect === "Deny")) return refuse("403 Forbidden");
      authorizer = { principalId: result.principalId, ...result.context };
    } catch {
      return refuse("401 Unauthorized");
    }
    const connected = await invoke<{ statusCode?: number }>(wsRoutes.get("$connect")!, {
      headers,
      queryStringParameters,
      isBase64Encoded: false,
      requestContext: wsContext(connectionId, "$connect", "CONNECT", authorizer),
    }).catch(() => ({ statusCode: 500 }));
    if ((connected?.statusCode ?? 200) >= 300) return refuse("403 Forbidden");
    wss.handleUpgrade(req, socket, head, (ws) => {
      const now = Date.now();
      live.set(connectionId, { socket: ws, authorizer, connectedAt: now, lastActiveAt: now, sourceIp: req.socket.remoteAddress ?? "" });
      ws.on("message", (data) => void onFrame(connectionId, data.toString()).catch((e) => options.log(`frame: ${(e as Error).message}`)));
      ws.on("close", (code, reason) => void onClose(connectionId, code, reason.toString()).catch((e) => options.log(`disconnect: ${(e as Error).message}`)));
    });
  }

  async function onFrame(connectionId: string, text: string) {
    const connection = live.get(connectionId);
    if (!connection) return;
    connection.lastActiveAt = Date.now();
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
    if (result?.body && connection.socket.readyState === WebSocket.OPEN) connection.socket.send(result.body);
  }

  async function onClose(connectionId: string, code: number, reason: string) {
    const connection = live.get(connectionId);
    if (!connection) return;
    live.delete(connectionId);
    await invoke(wsRoutes.get("$disconnect")!, {
      isBase64Encoded: false,
      requestContext: wsContext(connectionId, "$disconnect", "DISCONNECT", connection.authorizer, { disconnectStatusCode: code, disconnectReason: reason }),
    });
  }

  return {
    listen(port: number, host = "127.0.0.1"): Promise<number> {
      server = createServer((req, res) => {
        onHttp(req, res).catch((error) => {
          options.log(`http: ${(error as Error).message}`);
          if (!res.headersSent) reply(res, 500, { error: { code: "internal_error", message: "internal error" } });
        });
      });
      server.on("upgrade", (req, socket, head) => void onUpgrade(req, socket, head).catch(() => socket.destroy()));
      return new Promise((done) => server.listen(port, host, () => done((server.address() as { port: number }).port)));
    },
    /** Closing the gateway disconnects every client, as API Gateway would: their reconnect grace starts. */
    async close() {
      const open = [...live.entries()];
      await Promise.allSettled(
        open.map(([id, { socket }]) => {
          socket.terminate();
          return onClose(id, 1001, "going away");
        }),
      );
      await new Promise<void>((done) => server.close(() => done()));
      server.closeAllConnections();
    },
  };
}
