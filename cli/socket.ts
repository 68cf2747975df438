/** One WebSocket to Tollgate for the CLI: opened once, refused or unreachable as one clear line. */
import WebSocket from "ws";
import { CliError, EXIT, unreachable } from "./exit.js";
import { tokenOf, type Settings } from "./settings.js";

export function openSocket(settings: Settings): Promise<WebSocket> {
  const token = tokenOf(settings);
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(settings.wsUrl, { headers: { authorization: `Bearer ${token}` }, handshakeTimeout: 30_000 });
    socket.once("open", () => resolve(socket));
    socket.once("unexpected-response", (_request, response) => {
      socket.terminate();
      const refused = response.statusCode === 401 || response.statusCode === 403;
      reject(refused ? new CliError(EXIT.refused, `unauthorized: ${settings.wsUrl} refused the token (${response.statusCode})`) : unreachable(settings.wsUrl, `HTTP ${response.statusCode}`));
    });
    socket.once("error", (error: Error & { code?: string }) => reject(unreachable(settings.wsUrl, error.code ?? error.message)));
  });
}

/** Send a frame and wait for its direct reply (by `ref`); an error frame rejects with its code. */
export function request(socket: WebSocket, frame: Record<string, unknown>): Promise<Record<string, unknown>> {
  const ref = `cli-${Math.random().toString(36).slice(2)}`;
  return new Promise((resolve, reject) => {
    const onMessage = (data: WebSocket.RawData) => {
      const reply = JSON.parse(data.toString()) as Record<string, unknown>;
      if (reply.ref !== ref) return;
      socket.off("message", onMessage);
      if (reply.type === "error") reject(new CliError(EXIT.refused, `${reply.code}: ${reply.message}`));
      else resolve(reply);
    };
    socket.on("message", onMessage);
    socket.send(JSON.stringify({ ...frame, ref }));
  });
}
