/**
 * Tollgate's runner client: park on an elicitation and move on when its verdict comes. It
 * reconnects with backoff and resumes every wait by id, so no verdict is lost to a dropped socket,
 * and it ignores a second verdict or message it has already seen.
 */
import { randomUUID } from "node:crypto";
import WebSocket from "ws";
import { ServerFrame, type SessionMessage, type Verdict } from "./frames.js";

export type { SessionMessage, Verdict } from "./frames.js";

export interface SessionInfo {
  session_id: string;
  parent_session_id?: string;
  title?: string;
}

export interface ElicitParams {
  message: string;
  requestedSchema?: { type: "object"; properties: Record<string, unknown>; required?: string[] };
}

export interface ElicitOptions {
  sessionId: string;
  elicitationId?: string;
  params: ElicitParams;
  timeoutSeconds?: number;
  /** Aborting cancels the elicitation (the human's card closes) and rejects the wait. */
  signal?: AbortSignal;
}

export interface RunnerOptions {
  /** `ws://127.0.0.1:4000/ws` locally, the stack's WebSocketUrl in the cloud. */
  url: string;
  token: string;
  sessions?: SessionInfo[];
  onMessage?: (message: SessionMessage) => void;
  backoff?: { initialMs: number; maxMs: number };
  /** Keepalive: API Gateway closes a WebSocket after 10 minutes of silence. */
  pingEveryMs?: number;
}

/** Refusals that pass: the same request may succeed a moment later. */
const PASSING = new Set(["internal_error", "rate_limited"]);

export class TollgateError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "TollgateError";
  }
}

interface Wait {
  frame: Record<string, unknown>;
  sessionId: string;
  parked: boolean;
  /** Aborted: its cancel is sent again after a reconnect until the verdict comes. */
  cancelling: boolean;
  resolve: (verdict: Verdict) => void;
  reject: (error: Error) => void;
}

export class TollgateRunner {
  private socket?: WebSocket;
  private readonly sessions = new Map<string, SessionInfo>();
  private readonly waits = new Map<string, Wait>();
  private readonly replies = new Map<number, { resolve: (frame: ServerFrame) => void; reject: (e: Error) => void }>();
  private readonly seenVerdicts = new Set<string>();
  private readonly seenMessages = new Set<string>();
  private nextRef = 1;
  private closed = false;
  private connecting?: Promise<void>;
  private attempt = 0;
  private pinger?: NodeJS.Timeout;
  private currentConnection?: string;

  constructor(private readonly options: RunnerOptions) {
    for (const s of options.sessions ?? []) this.sessions.set(s.session_id, s);
  }

  /** The id Tollgate gave the live connection (changes at every reconnect). */
  get connectionId(): string | undefined {
    return this.socket ? this.currentConnection : undefined;
  }

  /** Connect and say hello; resolves once Tollgate has bound the sessions. */
  connect(): Promise<void> {
    if (!this.connecting && this.socket?.readyState === WebSocket.OPEN) return Promise.resolve(); // connected: never a second socket
    this.connecting ??= this.open().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  /** Register another session on the live connection (and on every reconnect). */
  async addSession(session: SessionInfo): Promise<void> {
    this.sessions.set(session.session_id, session);
    await this.connect();
    await this.request({ action: "hello", sessions: [session] }, "hello.ok");
  }

  /** Park until the verdict. Rejects on a refused request, or with an AbortError when aborted. */
  async elicit(options: ElicitOptions): Promise<Verdict> {
    options.signal?.throwIfAborted();
    const id = options.elicitationId ?? `elicit_${randomUUID()}`;
    const frame = { action: "elicit", session_id: options.sessionId, elicitation_id: id, params: options.params, timeout_seconds: options.timeoutSeconds };
    const verdict = new Promise<Verdict>((resolve, reject) => this.waits.set(id, { frame, sessionId: options.sessionId, parked: false, cancelling: false, resolve, reject }));
    const onAbort = () => {
      const wait = this.waits.get(id)!;
      wait.cancelling = true;
      if (wait.parked) this.sendCancel(id); // not parked yet: park() cancels once it is
    };
    options.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      await this.connect();
      await this.park(id);
      const result = await verdict;
      options.signal?.throwIfAborted();
      return result;
    } finally {
      options.signal?.removeEventListener("abort", onAbort);
      this.waits.delete(id);
    }
  }

  /** The seeds' `wait_for_user_approval`: true only when a human accepted. */
  async waitForUserApproval(options: ElicitOptions): Promise<boolean> {
    return (await this.elicit(options)).action === "accept";
  }

  /** True while this runner waits on an elicitation in that session (its message gate is shut). */
  hasPending(sessionId: string): boolean {
    return [...this.waits.values()].some((w) => w.sessionId === sessionId);
  }

  /** Give up waiting: the elicitation resolves `cancel`/`cancelled` and the wait ends with that verdict. */
  async cancel(elicitationId: string): Promise<void> {
    await this.request({ action: "cancel", elicitation_id: elicitationId }, "elicitation.verdict");
  }

  /**
   * An aborted wait's cancel. One lost with the connection goes again when the reconnect re-parks
   * it; one refused by a passing failure on the server's side goes again after a pause, while the
   * wait lasts (its deadline ends it at the latest).
   */
  private sendCancel(id: string, attempt = 0): void {
    this.cancel(id).catch((error: unknown) => {
      if (!(error instanceof TollgateError && PASSING.has(error.code)) || this.closed || !this.waits.has(id)) return;
      setTimeout(() => this.sendCancel(id, attempt + 1), this.backoffMs(attempt)).unref();
    });
  }

  private backoffMs(attempt: number): number {
    const { initialMs, maxMs } = this.options.backoff ?? { initialMs: 100, maxMs: 5_000 };
    return Math.min(maxMs, initialMs * 2 ** attempt) * (0.5 + Math.random() / 2);
  }

  close(): void {
    this.closed = true;
    clearInterval(this.pinger);
    this.socket?.close(1000);
    for (const wait of this.waits.values()) wait.reject(new TollgateError("closed", "runner closed"));
  }

  private async open(): Promise<void> {
    for (;;) {
      try {
        const socket = await this.dial();
        this.attempt = 0;
        this.socket = socket;
        const ok = await this.request({ action: "hello", sessions: [...this.sessions.values()], resume: [...this.waits.keys()] }, "hello.ok");
        if (ok.type === "hello.ok") this.currentConnection = ok.connection_id;
        this.startPinging();
        for (const [id, wait] of this.waits) if (!wait.parked) void this.park(id);
        return;
      } catch (error) {
        if (this.closed || (error instanceof TollgateError && error.code !== "connection_lost")) throw error;
        await new Promise((r) => setTimeout(r, this.backoffMs(this.attempt++)));
      }
    }
  }

  private dial(): Promise<WebSocket> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(this.options.url, { headers: { authorization: `Bearer ${this.options.token}` } });
      socket.once("open", () => resolve(socket));
      socket.once("unexpected-response", (_req, res) =>
        reject(res.statusCode === 401 || res.statusCode === 403 ? new TollgateError("unauthorized", `connection refused (${res.statusCode})`) : new TollgateError("connection_lost", `HTTP ${res.statusCode}`)),
      );
      socket.once("error", () => reject(new TollgateError("connection_lost", "could not connect")));
      socket.on("message", (data) => this.receive(data.toString()));
      socket.once("close", () => this.lost(socket));
    });
  }

  private lost(socket: WebSocket) {
    if (this.socket !== socket) return;
    this.socket = undefined;
    clearInterval(this.pinger);
    for (const reply of this.replies.values()) reply.reject(new TollgateError("connection_lost", "connection lost"));
    this.replies.clear();
    for (const wait of this.waits.values()) wait.parked = false;
    if (!this.closed) void this.connect().catch(() => undefined); // messages and verdicts wait for us: come back
  }

  private startPinging() {
    clearInterval(this.pinger);
    this.pinger = setInterval(() => void this.request({ action: "ping" }, "pong").catch(() => undefined), this.options.pingEveryMs ?? 5 * 60_000);
    this.pinger.unref();
  }

  private async park(id: string): Promise<void> {
    const wait = this.waits.get(id);
    if (!wait) return;
    try {
      await this.request(wait.frame, "elicitation.parked");
      wait.parked = true;
      if (wait.cancelling) this.sendCancel(id);
    } catch (error) {
      if (error instanceof TollgateError && error.code === "connection_lost") return; // the reconnect parks it again
      wait.reject(error as Error);
    }
  }

  /** Send a frame and wait for its direct reply (matched by `ref`). */
  private request(frame: Record<string, unknown>, expect: ServerFrame["type"]): Promise<ServerFrame> {
    const socket = this.socket;
    if (!socket || socket.readyState !== WebSocket.OPEN) return Promise.reject(new TollgateError("connection_lost", "not connected"));
    const ref = this.nextRef++;
    return new Promise((resolve, reject) => {
      this.replies.set(ref, {
        resolve: (reply) => (reply.type === "error" ? reject(new TollgateError(reply.code, reply.message)) : reply.type === expect ? resolve(reply) : reject(new TollgateError("bad_reply", reply.type))),
        reject,
      });
      socket.send(JSON.stringify({ ...frame, ref }));
    });
  }

  private receive(text: string) {
    let frame: ServerFrame;
    try {
      frame = ServerFrame.parse(JSON.parse(text));
    } catch {
      return; // not a frame of this protocol version
    }
    if (frame.type === "elicitation.verdict") this.onVerdict(frame);
    if (frame.type === "session.message" && !this.seenMessages.has(frame.message_id)) {
      this.seenMessages.add(frame.message_id);
      this.options.onMessage?.(frame);
    }
    if ("ref" in frame && typeof frame.ref === "number") {
      const reply = this.replies.get(frame.ref);
      this.replies.delete(frame.ref);
      reply?.resolve(frame);
    }
  }

  private onVerdict(frame: Verdict) {
    if (this.seenVerdicts.has(frame.elicitation_id)) return;
    this.seenVerdicts.add(frame.elicitation_id);
    this.waits.get(frame.elicitation_id)?.resolve(frame);
  }
}
