/** The bench's clients: a raw WebSocket runner/subscriber that counts every frame, and an HTTP client with keep-alive. */
import { Agent, request } from "node:http";
import WebSocket from "ws";
import { now } from "./stats.js";

export type Frame = Record<string, any> & { type: string };

/**
 * A raw protocol client: no dedupe, no reconnect, so the bench sees exactly what the server sends.
 * Every verdict frame is counted per elicitation id (a double is a bug, not something to hide).
 */
export class BenchSocket {
  readonly verdicts = new Map<string, Frame[]>();
  readonly badges = new Map<string, number>();
  errors: Frame[] = [];
  closedUnexpectedly = false;
  /** Frames sent and received: what API Gateway meters as WebSocket messages. */
  readonly messages = { sent: 0, received: 0 };
  private closing = false;
  private pinger?: ReturnType<typeof setInterval>;
  private nextRef = 1;
  private replies = new Map<number, (frame: Frame) => void>();
  private verdictWaiters = new Map<string, (frame: Frame, at: number) => void>();
  /** Called for every frame with its arrival time, before any other handling. */
  onFrame?: (frame: Frame, at: number) => void;

  private constructor(readonly ws: WebSocket) {
    ws.on("message", (data) => {
      const at = now();
      this.messages.received++;
      const frame = JSON.parse(data.toString()) as Frame;
      this.onFrame?.(frame, at);
      if (frame.type === "elicitation.verdict") {
        const list = this.verdicts.get(frame.elicitation_id) ?? [];
        list.push(frame);
        this.verdicts.set(frame.elicitation_id, list);
        const waiter = this.verdictWaiters.get(frame.elicitation_id);
        this.verdictWaiters.delete(frame.elicitation_id);
        waiter?.(frame, at);
      } else if (frame.type === "session.badge") {
        this.badges.set(frame.session_id, frame.pending_elicitations_count);
      } else if (frame.type === "error") {
        this.errors.push(frame);
      }
      if (typeof frame.ref === "number") {
        const reply = this.replies.get(frame.ref);
        this.replies.delete(frame.ref);
        reply?.(frame);
      }
    });
    ws.on("close", () => {
      clearInterval(this.pinger);
      if (!this.closing) this.closedUnexpectedly = true;
      for (const reply of this.replies.values()) reply({ type: "error", code: "connection_lost", message: "closed" });
      this.replies.clear();
    });
  }

  static open(url: string, token: string, timeoutMs = 30_000): Promise<BenchSocket> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { headers: { authorization: `Bearer ${token}` }, perMessageDeflate: false });
      const timer = setTimeout(() => (ws.terminate(), reject(new Error("connect timeout"))), timeoutMs);
      ws.once("open", () => (clearTimeout(timer), resolve(new BenchSocket(ws))));
      ws.once("unexpected-response", (_req, res) => (clearTimeout(timer), reject(new Error(`HTTP ${res.statusCode}`))));
      ws.once("error", (e) => (clearTimeout(timer), reject(e)));
    });
  }

  /** Send a frame with a numeric ref; resolves with the direct reply and the time it was sent. */
  request(frame: Record<string, unknown>, timeoutMs = 30_000): Promise<{ reply: Frame; sentAt: number; at: number }> {
    const ref = this.nextRef++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.replies.delete(ref);
        resolve({ reply: { type: "error", code: "timeout", message: `no reply within ${timeoutMs} ms` }, sentAt, at: now() });
      }, timeoutMs);
      this.replies.set(ref, (reply) => {
        clearTimeout(timer);
        resolve({ reply, sentAt, at: now() });
      });
      const sentAt = now();
      this.messages.sent++;
      this.ws.send(JSON.stringify({ ...frame, ref }));
    });
  }

  /** The verdict frame of this elicitation (already received or still to come), with its arrival time. */
  verdict(elicitationId: string, timeoutMs: number): Promise<{ frame: Frame; at: number } | undefined> {
    const seen = this.verdicts.get(elicitationId)?.[0];
    if (seen) return Promise.resolve({ frame: seen, at: now() });
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.verdictWaiters.delete(elicitationId);
        resolve(undefined);
      }, timeoutMs);
      this.verdictWaiters.set(elicitationId, (frame, at) => {
        clearTimeout(timer);
        resolve({ frame, at });
      });
    });
  }

  /** Send `ping` every `everyMs`, as the SDK does: API Gateway closes a connection whose client said nothing for 10 minutes. */
  keepAlive(everyMs: number) {
    this.pinger = setInterval(() => void this.request({ action: "ping" }), everyMs);
    this.pinger.unref();
  }

  close() {
    this.closing = true;
    clearInterval(this.pinger);
    this.ws.close(1000);
  }
}

/** A human's HTTP client: keep-alive, one request at a time per caller. */
export function httpClient(baseUrl: string, sockets = 64) {
  const agent = new Agent({ keepAlive: true, maxSockets: sockets });
  const url = new URL(baseUrl);
  function call(token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = request(
        {
          agent,
          host: url.hostname,
          port: url.port,
          method,
          path,
          headers: { authorization: `Bearer ${token}`, ...(payload ? { "content-type": "application/json", "content-length": Buffer.byteLength(payload) } : {}) },
          timeout: 30_000,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            const text = Buffer.concat(chunks).toString();
            resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined });
          });
          res.on("error", reject);
        },
      );
      req.on("timeout", () => req.destroy(new Error("HTTP timeout")));
      req.on("error", reject);
      req.end(payload);
    });
  }
  return { call, close: () => agent.destroy() };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Run `task` over `items` with at most `limit` at a time. */
export async function pool<T, R>(items: T[], limit: number, task: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await task(items[i], i);
      }
    }),
  );
  return results;
}

/** `promise`, or a rejection naming `what` once `ms` have passed without an answer. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
    promise.then(
      (v) => (clearTimeout(timer), resolve(v)),
      (e) => (clearTimeout(timer), reject(e)),
    );
  });
}
