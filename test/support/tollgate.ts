/**
 * Test harness: the real local runtime (API Gateway, @connections, Scheduler and stream stand-ins
 * over DynamoDB Local) on a free port with its own table, tokens, and thin HTTP and WebSocket clients.
 */
import { randomUUID } from "node:crypto";
import { ScanCommand, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { inject } from "vitest";
import WebSocket from "ws";
import type { Role } from "../../functions/shared/schemas.js";
import { steppedClock, type SteppedClock } from "../../local/clock.js";
import { startRuntime, type Runtime, type RuntimeOptions } from "../../local/runtime.js";
import { mintToken } from "../../local/tokens.js";
import { TollgateRunner, type RunnerOptions } from "../../sdk/runner.js";

export const SECRET = "test-secret-for-tollgate";

export interface Harness {
  runtime: Runtime;
  /** The runtime's clock: it runs with real time and jumps when a test moves it. */
  clock: SteppedClock;
  /**
   * Let `ms` pass on the runtime's clock, plus the Scheduler's jitter when one is set, so that
   * everything due within `ms` fires; resolves once the fired functions have returned.
   */
  elapse(ms: number): Promise<void>;
  /** Wait until a schedule whose name starts with `prefix` is waiting to fire. */
  scheduled(prefix: string): Promise<void>;
  token(role: Role, sub?: string, tenant?: string): Promise<string>;
  http(token: string | undefined, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  socket(token: string): Promise<TestSocket>;
  runner(options?: Partial<RunnerOptions> & { sub?: string; tenant?: string }): Promise<TollgateRunner>;
  scan(): Promise<Record<string, unknown>[]>;
  /** A scan taken once the table stopped changing (streams and schedules settle). */
  quietScan(): Promise<Record<string, unknown>[]>;
  stop(): Promise<void>;
}

/** Options every harness of this test file starts with (a file that re-runs others with a setting sets them first). */
const defaults: Partial<RuntimeOptions> = {};
export function harnessDefaults(options: Partial<RuntimeOptions>): void {
  Object.assign(defaults, options);
}

export async function startTollgate(options: Partial<RuntimeOptions> = {}): Promise<Harness> {
  const clock = steppedClock();
  const runtime = await startRuntime({
    clock,
    port: 0,
    dynamoEndpoint: inject("dynamoEndpoint"),
    table: `tollgate-${randomUUID().slice(0, 8)}`,
    jwtSecret: SECRET,
    streamPollMs: 20,
    // The clock stands still until a test moves it: kept targets would never be read again.
    notifyTargetsKeptMs: 0,
    log: process.env.TOLLGATE_TEST_LOG ? (line) => console.error(line) : () => undefined,
    ...defaults,
    ...options,
  });
  const jitterMs = (options.schedulerJitterSeconds ?? defaults.schedulerJitterSeconds ?? 0) * 1000;
  const runners: TollgateRunner[] = [];
  const sockets: TestSocket[] = [];
  const dynamo = new DynamoDBClient({ endpoint: runtime.dynamoEndpoint, region: "us-east-1", credentials: { accessKeyId: "local", secretAccessKey: "local" } });
  const token = (role: Role, sub = `${role}-1`, tenant = "acme") => mintToken(SECRET, { sub, tenant, role });
  async function scan() {
    const items: Record<string, unknown>[] = [];
    let start: any;
    do {
      const out = await dynamo.send(new ScanCommand({ TableName: runtime.table, ExclusiveStartKey: start, ConsistentRead: true }));
      items.push(...(out.Items ?? []));
      start = out.LastEvaluatedKey;
    } while (start);
    return items.sort((a: any, b: any) => `${a.pk.S}${a.sk.S}`.localeCompare(`${b.pk.S}${b.sk.S}`));
  }
  return {
    runtime,
    clock,
    elapse: (ms) => clock.advance(ms + jitterMs),
    async scheduled(prefix) {
      await eventually(() => {
        if (!runtime.pendingSchedules().some((name) => name.startsWith(prefix))) throw new Error(`no schedule ${prefix}* yet; have ${runtime.pendingSchedules()}`);
      });
    },
    token,
    async http(bearer, method, path, body) {
      const response = await fetch(`${runtime.httpUrl}${path}`, {
        method,
        headers: { ...(bearer ? { authorization: `Bearer ${bearer}` } : {}), "content-type": "application/json" },
        body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined };
    },
    async socket(bearer) {
      const s = await TestSocket.open(runtime.wsUrl, bearer);
      sockets.push(s);
      return s;
    },
    async runner(o = {}) {
      const r = new TollgateRunner({ url: runtime.wsUrl, token: await token("runner", o.sub, o.tenant), backoff: { initialMs: 20, maxMs: 200 }, ...o });
      runners.push(r);
      await r.connect();
      return r;
    },
    scan,
    async quietScan() {
      let last = JSON.stringify(await scan());
      for (;;) {
        await sleep(200);
        const now = await scan();
        if (JSON.stringify(now) === last) return now;
        last = JSON.stringify(now);
      }
    },
    async stop() {
      for (const r of runners) r.close();
      for (const s of sockets) s.close();
      dynamo.destroy();
      await runtime.stop();
    },
  };
}

/** A raw WebSocket client that records every frame it receives. */
export class TestSocket {
  readonly frames: any[] = [];
  private waiters: { match: (f: any) => boolean; resolve: (f: any) => void }[] = [];
  /** Resolves with the close code and reason when the connection ends. */
  readonly closed: Promise<{ code: number; reason: string }>;
  private constructor(readonly ws: WebSocket) {
    this.closed = new Promise((resolve) => ws.once("close", (code, reason) => resolve({ code, reason: reason.toString() })));
    ws.on("message", (data) => {
      const frame = JSON.parse(data.toString());
      this.frames.push(frame);
      this.waiters = this.waiters.filter((w) => (w.match(frame) ? (w.resolve(frame), false) : true));
    });
  }

  static open(url: string, token: string): Promise<TestSocket> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { headers: { authorization: `Bearer ${token}` } });
      const socket = new TestSocket(ws);
      ws.once("open", () => resolve(socket));
      ws.once("unexpected-response", (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
      ws.once("error", reject);
    });
  }

  send(frame: unknown) {
    this.ws.send(typeof frame === "string" ? frame : JSON.stringify(frame));
  }

  /** The first frame (already received or still to come) that matches. */
  next(match: (frame: any) => boolean, timeoutMs = 10_000): Promise<any> {
    const seen = this.frames.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no matching frame within ${timeoutMs} ms; got ${JSON.stringify(this.frames)}`)), timeoutMs);
      this.waiters.push({ match, resolve: (f) => (clearTimeout(timer), resolve(f)) });
    });
  }

  /** Send a frame with a fresh ref and wait for the reply that echoes it. */
  async request(frame: Record<string, unknown>): Promise<any> {
    const ref = `r${Math.random().toString(36).slice(2)}`;
    this.send({ ...frame, ref });
    return this.next((f) => f.ref === ref);
  }

  count(match: (frame: any) => boolean): number {
    return this.frames.filter(match).length;
  }

  close() {
    this.ws.terminate();
  }
}

/** Poll until `check` passes (for views derived by the stream, e.g. subscriber pushes). */
export async function eventually<T>(check: () => Promise<T> | T, timeoutMs = 10_000): Promise<T> {
  const start = Date.now();
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() - start > timeoutMs) throw error;
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
