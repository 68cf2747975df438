/**
 * One WebSocket connection to Tollgate, over the runtime's global `WebSocket` (Node 22+, Deno,
 * Bun, browsers: the token goes as `?token=`, as browsers cannot set headers) or over the `ws`
 * package (Node 20: the token goes as `Authorization: Bearer`).
 */
import type WsWebSocket from "ws";
import { TollgateError, connectionLost } from "./errors.js";

/** `auto`: the global `WebSocket` when the runtime has one, else the `ws` package. */
export type Transport = "auto" | "global" | "ws";

export interface Link {
  readonly open: boolean;
  send(text: string): void;
  close(code?: number): void;
}

/** Called only for a connection that opened, with that connection. */
export interface LinkEvents {
  message(link: Link, text: string): void;
  closed(link: Link): void;
}

type WsModule = { default: typeof WsWebSocket };

export function dial(url: string, token: string, transport: Transport, events: LinkEvents): Promise<Link> {
  const global = (globalThis as { WebSocket?: typeof WebSocket }).WebSocket;
  if (transport === "global" || (transport === "auto" && global)) {
    if (!global) return Promise.reject(new TollgateError("no_websocket", "this runtime has no global WebSocket"));
    return dialGlobal(global, url, token, events);
  }
  return loadWs().then((ws) => dialWs(ws, url, token, events));
}

async function loadWs(): Promise<typeof WsWebSocket> {
  try {
    return ((await import("ws")) as WsModule).default;
  } catch {
    throw new TollgateError("no_websocket", "this runtime has no global WebSocket: install the ws package (npm install ws)");
  }
}

/** Both kinds of socket share these three members. */
function linkOf(socket: { readyState: number; send(text: string): void; close(code?: number): void }, OPEN: number): Link {
  return {
    get open() {
      return socket.readyState === OPEN;
    },
    send: (text) => socket.send(text),
    close: (code) => socket.close(code),
  };
}

function withToken(url: string, token: string): string {
  const u = new URL(url);
  u.searchParams.set("token", token);
  return u.toString();
}

function dialGlobal(Global: typeof WebSocket, url: string, token: string, events: LinkEvents): Promise<Link> {
  return new Promise((resolve, reject) => {
    const socket = new Global(withToken(url, token));
    const link = linkOf(socket, Global.OPEN);
    // A refused upgrade shows here only as an error: the standard WebSocket does not tell the status.
    let opened = false;
    socket.addEventListener("open", () => ((opened = true), resolve(link)), { once: true });
    socket.addEventListener("error", () => reject(connectionLost("could not connect")), { once: true });
    socket.addEventListener("message", (event) => typeof event.data === "string" && events.message(link, event.data));
    socket.addEventListener("close", () => opened && events.closed(link), { once: true });
  });
}

function dialWs(Ws: typeof WsWebSocket, url: string, token: string, events: LinkEvents): Promise<Link> {
  return new Promise((resolve, reject) => {
    const socket = new Ws(url, { headers: { authorization: `Bearer ${token}` } });
    const link = linkOf(socket, Ws.OPEN);
    let opened = false;
    socket.once("open", () => ((opened = true), resolve(link)));
    socket.once("unexpected-response", (_request, response) => {
      const status = response.statusCode ?? 0;
      reject(status === 401 || status === 403 ? new TollgateError("unauthorized", `connection refused (${status})`) : connectionLost(`HTTP ${status}`));
      socket.terminate();
    });
    socket.once("error", () => reject(connectionLost("could not connect")));
    socket.on("message", (data, isBinary) => !isBinary && events.message(link, data.toString()));
    socket.once("close", () => opened && events.closed(link));
  });
}
