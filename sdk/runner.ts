/**
 * Tollgate's runner client: park on an elicitation and move on when its verdict comes. It
 * reconnects with backoff (with a fresh token when it has a token provider) and resumes every wait
 * by id, so no verdict is lost to a dropped socket and no wait is raised twice; it ignores a
 * second verdict or message it has already seen.
 */
import { TollgateError, connectionLost } from "./errors.js";
import { ServerFrame, checkFrameSize, encodeFrame, helloFrames, type SessionInfo, type SessionMessage, type Verdict } from "./frames.js";
import { RecentIds } from "./recent.js";
import { dial, type Link, type Transport } from "./socket.js";

export { TollgateError } from "./errors.js";
export type { SessionInfo, SessionMessage, Verdict } from "./frames.js";
export type { Transport } from "./socket.js";

/** What the human is asked (docs/protocol.md "Elicitation params"): a question with a form or without, or consent to open a page. */
export type ElicitParams = FormParams | UrlParams;
export interface FormParams {
  mode?: "form";
  message: string;
  requestedSchema?: { type: "object"; properties: Record<string, unknown>; required?: string[] };
}
export interface UrlParams {
  mode: "url";
  message: string;
  url: string;
  /** The asking server's own id, kept as it is. */
  elicitationId: string;
}

export interface ElicitOptions {
  sessionId: string;
  elicitationId?: string;
  params: ElicitParams;
  timeoutSeconds?: number;
  /** Aborting cancels the elicitation (the human's card closes) and rejects the wait. */
  signal?: AbortSignal;
  /**
   * Called each time Tollgate confirms the wait is parked (stored, its deadline set): once, and once
   * more after every reconnect that parks it again. From then on the verdict is not lost.
   */
  onParked?: (parked: Parked) => void;
}

export interface Parked {
  elicitationId: string;
  /** When silence becomes a decline (ISO 8601). */
  deadline: string;
}

/** A token, or a function (sync or async) that gives a current one; it is called before every connection. */
export type TokenSource = string | (() => string | Promise<string>);

export interface RunnerOptions {
  /** `ws://127.0.0.1:4000/ws` locally, the stack's WebSocketUrl in the cloud. */
  url: string;
  token: TokenSource;
  sessions?: SessionInfo[];
  onMessage?: (message: SessionMessage) => void;
  backoff?: { initialMs: number; maxMs: number };
  /**
   * Keepalive (default 5 minutes): API Gateway closes a WebSocket after 10 minutes of silence. A
   * connection that has sent nothing back by the next ping is replaced.
   */
  pingEveryMs?: number;
  /** How many message ids are remembered to drop a redelivery (default 10,000). */
  rememberMessages?: number;
  transport?: Transport;
}

/** Refusals that pass: the same request may succeed a moment later. */
const PASSING = new Set(["internal_error", "rate_limited"]);
/** Refused tokens (or failed token provider calls) in a row before the runner gives up. */
const REFUSALS = 3;

interface Wait {
  frame: Record<string, unknown>;
  sessionId: string;
  parked: boolean;
  /** Its `elicit` is on its way: the first connection's re-park and `elicit` itself send it once between them. */
  parking: boolean;
  onParked?: (parked: Parked) => void;
  /** Aborted: its cancel is sent again after a reconnect until the verdict comes. */
  cancelling: boolean;
  resolve: (verdict: Verdict) => void;
  reject: (error: Error) => void;
}

type Timer = ReturnType<typeof setTimeout>;
const unref = (timer: Timer) => (timer as { unref?: () => void }).unref?.();

export class TollgateRunner {
  private link?: Link;
  private readonly sessions = new Map<string, SessionInfo>();
  private readonly waits = new Map<string, Wait>();
  private readonly replies = new Map<number, { resolve: (frame: ServerFrame) => void; reject: (e: Error) => void }>();
  private readonly seenMessages: RecentIds;
  private nextRef = 1;
  private closed = false;
  private connecting?: Promise<void>;
  private attempt = 0;
  private pinger?: ReturnType<typeof setInterval>;
  /** A frame arrived since the last ping: the connection is alive. */
  private heard = true;
  private currentConnection?: string;
  /** Ends the pause between two connection attempts at once (when the runner closes). */
  private endPause?: () => void;

  constructor(private readonly options: RunnerOptions) {
    for (const s of options.sessions ?? []) this.sessions.set(s.session_id, s);
    this.seenMessages = new RecentIds(options.rememberMessages ?? 10_000);
  }

  /** The id Tollgate gave the live connection (changes at every reconnect). */
  get connectionId(): string | undefined {
    return this.link ? this.currentConnection : undefined;
  }

  /** What the runner holds: waits and replies in flight, and the message ids it remembers (bounded). */
  get footprint(): { waits: number; replies: number; rememberedMessages: number } {
    return { waits: this.waits.size, replies: this.replies.size, rememberedMessages: this.seenMessages.size };
  }

  /** Connect and say hello; resolves once Tollgate has bound the sessions. */
  connect(): Promise<void> {
    if (this.closed) return Promise.reject(new TollgateError("closed", "runner closed"));
    if (!this.connecting && this.link?.open) return Promise.resolve(); // connected: never a second socket
    this.connecting ??= this.open().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  /** Register another session on the live connection (and on every reconnect). */
  async addSession(session: SessionInfo): Promise<void> {
    const before = this.sessions.get(session.session_id);
    this.sessions.set(session.session_id, session);
    try {
      await this.requestAcrossReconnects({ action: "hello", sessions: [session] }, "hello.ok");
    } catch (error) {
      // Refused: not said again at the next reconnect, where its refusal would fail every wait.
      if (this.sessions.get(session.session_id) !== session) throw error;
      if (before) this.sessions.set(session.session_id, before);
      else this.sessions.delete(session.session_id);
      throw error;
    }
  }

  /** Park until the verdict. Rejects on a refused request, or with an AbortError when aborted. */
  async elicit(options: ElicitOptions): Promise<Verdict> {
    options.signal?.throwIfAborted();
    const id = options.elicitationId ?? `elicit_${crypto.randomUUID()}`;
    // One wait per id: a second would take the first one's place and leave it unsettled for good.
    if (this.waits.has(id)) throw new TollgateError("conflict", `this runner already waits on ${id}`);
    const frame = { action: "elicit", session_id: options.sessionId, elicitation_id: id, params: options.params, timeout_seconds: options.timeoutSeconds };
    checkFrameSize(frame);
    let wait!: Wait;
    const verdict = new Promise<Verdict>((resolve, reject) => {
      wait = { frame, sessionId: options.sessionId, parked: false, parking: false, onParked: options.onParked, cancelling: false, resolve, reject };
      this.waits.set(id, wait);
    });
    verdict.catch(() => undefined); // a wait refused before it is awaited is not an unhandled rejection
    const onAbort = () => {
      if (this.waits.get(id) !== wait) return; // its verdict came first
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
      if (this.waits.get(id) === wait) this.waits.delete(id);
    }
  }

  /** `wait_for_user_approval`: true only when a human accepted. */
  async waitForUserApproval(options: ElicitOptions): Promise<boolean> {
    return (await this.elicit(options)).action === "accept";
  }

  /** True while this runner waits on an elicitation in that session (its message gate is shut). */
  hasPending(sessionId: string): boolean {
    return [...this.waits.values()].some((w) => w.sessionId === sessionId);
  }

  /** Give up waiting: the elicitation resolves `cancel`/`cancelled` and the wait ends with that verdict. */
  async cancel(elicitationId: string): Promise<void> {
    await this.requestAcrossReconnects({ action: "cancel", elicitation_id: elicitationId }, "elicitation.verdict");
  }

  close(): void {
    this.closed = true;
    clearInterval(this.pinger);
    this.endPause?.();
    this.link?.close(1000);
    this.failWaits(new TollgateError("closed", "runner closed"));
  }

  /**
   * An aborted wait's cancel. One lost with the connection goes again when the reconnect re-parks
   * it; one refused by a passing failure on the server's side goes again after a pause, while the
   * wait lasts (its deadline ends it at the latest).
   */
  private sendCancel(id: string, attempt = 0): void {
    this.request({ action: "cancel", elicitation_id: id }, "elicitation.verdict").catch((error: unknown) => {
      if (!(error instanceof TollgateError && PASSING.has(error.code)) || this.closed || !this.waits.has(id)) return;
      unref(setTimeout(() => this.sendCancel(id, attempt + 1), this.backoffMs(attempt)));
    });
  }

  private backoffMs(attempt: number): number {
    const { initialMs, maxMs } = this.options.backoff ?? { initialMs: 100, maxMs: 5_000 };
    return Math.min(maxMs, initialMs * 2 ** attempt) * (0.5 + Math.random() / 2);
  }

  private failWaits(error: Error) {
    for (const wait of this.waits.values()) wait.reject(error);
    this.waits.clear();
  }

  private async token(): Promise<string> {
    const source = this.options.token;
    if (typeof source === "string") return source;
    try {
      return await source();
    } catch (error) {
      throw new TollgateError("token_provider_failed", `the token provider failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private async open(): Promise<void> {
    let refusals = 0;
    for (;;) {
      if (this.closed) throw new TollgateError("closed", "runner closed");
      let dialed: Link | undefined;
      try {
        const link = await dial(this.options.url, await this.token(), this.options.transport ?? "auto", {
          message: (link, text) => this.receive(link, text),
          closed: (link) => this.lost(link),
        });
        if (this.closed) {
          link.close(1000); // closed while it dialed
          throw new TollgateError("closed", "runner closed");
        }
        this.link = dialed = link;
        for (const frame of helloFrames([...this.sessions.values()], [...this.waits.keys()])) {
          const ok = await this.request(frame, "hello.ok");
          if (ok.type === "hello.ok") this.currentConnection = ok.connection_id;
        }
        this.attempt = 0;
        this.startPinging(link);
        for (const [id, wait] of this.waits) if (!wait.parked) void this.park(id);
        return;
      } catch (error) {
        // A connection whose hello failed is not kept: the next connect says hello on a fresh one.
        if (dialed && this.link === dialed) {
          this.link = undefined;
          dialed.close(1000);
        }
        if (this.closed || !(error instanceof TollgateError)) throw error;
        const refused = error.code === "unauthorized" || error.code === "token_provider_failed";
        // A string token refused once is refused for good; a provider may give a better one.
        if (refused && (typeof this.options.token === "string" || ++refusals >= REFUSALS)) throw error;
        // A hello refused in passing is safe to say again, after the pause.
        if (!refused && error.code !== "connection_lost" && !PASSING.has(error.code)) throw error;
        await this.pause(this.backoffMs(this.attempt++));
      }
    }
  }

  /**
   * The pause between connection attempts. Unlike the keepalive it holds the process open, as the
   * socket it replaces did: a runner that awaits a verdict does not end while Tollgate is out of reach.
   */
  private pause(ms: number): Promise<void> {
    return new Promise<void>((done) => {
      const timer = setTimeout(done, ms);
      this.endPause = () => {
        clearTimeout(timer);
        done();
      };
    }).finally(() => (this.endPause = undefined));
  }

  private lost(link: Link) {
    if (this.link !== link) return;
    this.link = undefined;
    clearInterval(this.pinger);
    for (const reply of this.replies.values()) reply.reject(connectionLost());
    this.replies.clear();
    for (const wait of this.waits.values()) wait.parked = false;
    // Messages and verdicts wait for us: come back. If that is refused for good, say so to every wait.
    if (!this.closed) this.connect().catch((error: Error) => this.failWaits(error));
  }

  /** Give up a connection (its token ran out, or it went silent) and reconnect at once. */
  private drop(link: Link) {
    link.close(1000);
    this.lost(link);
  }

  /**
   * Ping to keep the connection open. A connection that said nothing between two pings is dead
   * without knowing it (a network that went silent closes nothing): replace it.
   */
  private startPinging(link: Link) {
    clearInterval(this.pinger);
    this.heard = true;
    this.pinger = setInterval(
      () => {
        if (!this.heard) return this.drop(link);
        this.heard = false;
        this.request({ action: "ping" }, "pong").catch(() => undefined);
      },
      this.options.pingEveryMs ?? 5 * 60_000,
    );
    unref(this.pinger);
  }

  private async park(id: string): Promise<void> {
    const wait = this.waits.get(id);
    if (!wait || wait.parked || wait.parking) return;
    let reply: ServerFrame;
    wait.parking = true;
    try {
      reply = await this.request(wait.frame, "elicitation.parked");
    } catch (error) {
      if (error instanceof TollgateError && error.code === "connection_lost") return; // the reconnect parks it again
      return wait.reject(error as Error);
    } finally {
      wait.parking = false;
    }
    wait.parked = true;
    if (wait.cancelling) this.sendCancel(id);
    if (reply.type === "elicitation.parked") wait.onParked?.({ elicitationId: id, deadline: reply.deadline });
  }

  /** A request that goes again on the next connection when its own is lost (both calls above are safe to repeat). */
  private async requestAcrossReconnects(frame: Record<string, unknown>, expect: ServerFrame["type"]): Promise<ServerFrame> {
    for (;;) {
      await this.connect();
      try {
        return await this.request(frame, expect);
      } catch (error) {
        if (!(error instanceof TollgateError && error.code === "connection_lost") || this.closed) throw error;
      }
    }
  }

  /** Send a frame and wait for its direct reply (matched by `ref`). */
  private request(frame: Record<string, unknown>, expect: ServerFrame["type"]): Promise<ServerFrame> {
    const link = this.link;
    if (!link?.open) return Promise.reject(connectionLost("not connected"));
    const ref = this.nextRef++;
    let text: string;
    try {
      text = encodeFrame({ ...frame, ref });
    } catch (error) {
      return Promise.reject(error);
    }
    return new Promise((resolve, reject) => {
      this.replies.set(ref, {
        resolve: (reply) =>
          reply.type === "error" ? reject(new TollgateError(reply.code, reply.message)) : reply.type === expect ? resolve(reply) : reject(new TollgateError("bad_reply", reply.type)),
        reject,
      });
      link.send(text);
    });
  }

  private receive(link: Link, text: string) {
    if (link === this.link) this.heard = true;
    let frame: ServerFrame;
    try {
      frame = ServerFrame.parse(JSON.parse(text));
    } catch {
      return; // not a frame of this protocol version
    }
    if (frame.type === "error" && frame.code === "unauthorized") return this.drop(link); // what it refused goes again after the reconnect
    if (frame.type === "elicitation.verdict") this.onVerdict(frame);
    if (frame.type === "session.message" && this.seenMessages.add(frame.message_id)) this.options.onMessage?.(frame);
    if ("ref" in frame && typeof frame.ref === "number") {
      const reply = this.replies.get(frame.ref);
      this.replies.delete(frame.ref);
      reply?.resolve(frame);
    }
  }

  /** The first verdict for a wait ends it; a repeat finds no wait and is dropped, so nothing is kept per verdict. */
  private onVerdict(frame: Verdict) {
    const wait = this.waits.get(frame.elicitation_id);
    if (!wait) return;
    this.waits.delete(frame.elicitation_id);
    wait.resolve(frame);
  }
}
