/**
 * API Gateway's stand-in on one port: the HTTP API (payload format 2.0 events), the WebSocket API
 * at `/ws` with its `@connections` management API (`websockets.ts`), the inbox's static files, and
 * whatever other AWS endpoints the runtime mounts on the same port (the Scheduler stand-in).
 */
import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { extname } from "node:path";
import { functions, type FunctionName } from "../functions/catalog.js";
import { cors } from "../functions/shared/cors.js";
import type { Clock } from "./clock.js";
import { inboxFile } from "./inbox-files.js";
import type { Invoke } from "./lambda.js";
import { createWebSockets, flatHeaders, queryOf, reply } from "./websockets.js";

interface HttpRoute {
  name: FunctionName;
  method: string;
  template: string;
  pattern: RegExp;
  params: string[];
}

/** Another service answering on the gateway's port: true when it handled the request. */
export type Mount = (req: IncomingMessage, res: ServerResponse, url: URL, body: string) => Promise<boolean>;

/** What API Gateway's HTTP API answers a request that no route matches: its own body, not the contract's error. */
const noRoute = { message: "Not Found" };

/** API Gateway's answer to a CORS preflight, for every origin (the deployment's default). */
const preflight = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": cors.allowMethods.join(","),
  "access-control-allow-headers": cors.allowHeaders.join(","),
  "access-control-max-age": String(cors.maxAgeSeconds),
};

const contentTypes: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".json": "application/json",
};

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

const readBody = (req: IncomingMessage) =>
  new Promise<Buffer>((done, fail) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => done(Buffer.concat(chunks)));
    req.on("error", fail);
  });

export function createGateway(options: { invoke: Invoke; clock: Clock; mounts: Mount[]; log: (line: string) => void }) {
  const { invoke, clock } = options;
  const routes = httpRoutes();
  const sockets = createWebSockets(options);
  let server: Server;

  async function onHttp(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const body = await readBody(req);
    if (url.pathname.startsWith("/@connections/")) return sockets.onConnectionsApi(req, res, url, body);
    for (const mount of options.mounts) if (await mount(req, res, url, body.toString())) return;
    if (req.headers.origin) {
      if (req.method === "OPTIONS" && req.headers["access-control-request-method"]) return res.writeHead(204, preflight).end();
      res.setHeader("access-control-allow-origin", "*");
      res.setHeader("access-control-expose-headers", cors.exposeHeaders.join(","));
    }
    const route = routes.find((r) => r.method === req.method && r.pattern.test(url.pathname));
    if (route) return onRoute(route, req, res, url, body);
    if (req.method === "GET") return onStatic(res, url.pathname);
    reply(res, 404, noRoute);
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
        time: new Date(clock.now()).toISOString(),
        timeEpoch: clock.now(),
      },
      body: body.length > 0 ? body.toString("utf8") : undefined,
      isBase64Encoded: false,
    };
    const result = await invoke<{ statusCode?: number; headers?: Record<string, string>; body?: string }>(route.name, event);
    reply(res, result?.statusCode ?? 200, result?.body ?? "", result?.headers ?? {});
  }

  async function onStatic(res: ServerResponse, pathname: string) {
    const file = inboxFile(pathname);
    if (!file) return reply(res, 404, noRoute);
    try {
      const content = await readFile(file);
      res.writeHead(200, { "content-type": contentTypes[extname(file)] ?? "application/octet-stream" });
      res.end(content);
    } catch {
      reply(res, 404, noRoute);
    }
  }

  return {
    holdReplies: sockets.holdReplies,
    /** Listen on `port` (0: any free one); a port in use rejects with a one-line reason. */
    listen(port: number, host = "127.0.0.1"): Promise<number> {
      server = createServer((req, res) => {
        onHttp(req, res).catch((error) => {
          options.log(`http: ${(error as Error).message}`);
          if (!res.headersSent) reply(res, 500, { error: { code: "internal_error", message: "internal error" } });
        });
      });
      server.on("upgrade", (req, socket, head) => {
        if (new URL(req.url ?? "/", "http://127.0.0.1").pathname !== "/ws") return socket.destroy();
        void sockets.onUpgrade(req, socket, head).catch(() => socket.destroy());
      });
      return new Promise((done, fail) => {
        server.once("error", (error: NodeJS.ErrnoException) => fail(error.code === "EADDRINUSE" ? new Error(`port ${port} on ${host} is already in use (set TOLLGATE_PORT to another port)`) : error));
        server.listen(port, host, () => done((server.address() as { port: number }).port));
      });
    },
    /** Closing the gateway disconnects every client, as API Gateway would: their reconnect grace starts. */
    async close() {
      // Stop listening first: a runner that reconnected while its old socket closed kept the server open for ever.
      const closed = server.listening ? new Promise<void>((done) => server.close(() => done())) : undefined;
      await sockets.closeAll();
      server.closeAllConnections();
      await closed;
    },
  };
}
