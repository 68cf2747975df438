/**
 * Cost, measured: the runtime runs in this process against DynamoDB Local through the metering proxy,
 * and one elicitation after another goes the way the cost model prices it: a runner raises it over its
 * WebSocket in a top-level session, one inbox tab subscribed to every session hears it (as the inbox
 * subscribes: no badge frames, it counts from the events), a human answers over HTTP from that tab
 * (naming its connection, so the tab hears the verdict in the reply, not as an event); at the end a
 * human lists the sessions awaiting approval once. Every DynamoDB call's capacity, every AWS call
 * with the function that made it, every invocation with its duration and every WebSocket message is
 * counted over those elicitations alone (connecting and subscribing come before).
 */
import { env } from "../../functions/shared/env.js";
import { startRuntime } from "../../local/runtime.js";
import { mintToken } from "../../local/tokens.js";
import { BenchSocket, httpClient, sleep, withTimeout } from "../clients.js";
import { log, SECRET } from "../config.js";
import { traceCalls } from "../cost/calls.js";
import { startMeteringProxy, type MeteringProxy } from "../cost/proxy.js";
import { pathCalls, type PathWindow } from "../cost/sequential.js";

const TENANT = "bench-cost";
export const TABLE = "bench-cost";

/** The settings the metered runtime runs with, on a table of its own. */
export interface CostDeployment {
  table: string;
  rateLimits: { raisesPerMinute: number; verdictsPerMinute: number };
  subscriberShards?: number;
  /** "off": resolutions are not placed in the history (`TOLLGATE_HISTORY`). */
  history?: "off";
}

export const deployments = {
  /** As deployed by default: per-token rate limits on (too high to refuse the phase), four subscriber shards. */
  byDefault: { table: TABLE, rateLimits: { raisesPerMinute: 1_000_000, verdictsPerMinute: 1_000_000 } },
  /**
   * The cheapest a deployment can choose today, every guarantee of the contract kept: no per-token rate
   * limits (API Gateway's stage throttling alone; `0` turns a limit off), one subscriber shard, for tenants
   * that keep few inbox tabs open (docs/scale.md), and no history (`GET /v1/history` is `not_found`).
   */
  lean: { table: "bench-cost-lean", rateLimits: { raisesPerMinute: 0, verdictsPerMinute: 0 }, subscriberShards: 1, history: "off" },
} satisfies Record<string, CostDeployment>;

/**
 * The functions on each path; the stream's own hop (a batch to `streams`) sits between the two on the
 * badge path, which ends where the inbox hears the request event it counts its badge from.
 */
export const paths = {
  verdict: ["httpPostEvent"],
  park: ["wsElicit"],
  badge: ["wsElicit", "streams"],
} as const;

/**
 * Until no function runs, no call to the table is in flight and none came for `ms`: the stream's
 * reactions to the last change are done, as they are when a human answers seconds later (at most 5 s).
 */
async function settled(proxy: MeteringProxy, trace: ReturnType<typeof traceCalls>, ms: number) {
  const until = Date.now() + 5_000;
  for (let seen = proxy.calls.length; Date.now() < until; seen = proxy.calls.length) {
    await sleep(ms);
    if (proxy.calls.length === seen && proxy.inFlight() === 0 && trace.invocations.every((i) => i.end !== undefined)) return;
  }
}

export async function costPhase(dynamoEndpoint: string, dataDir: string, count: number, thinkMs: number, deployment: CostDeployment) {
  const proxy = await startMeteringProxy(dynamoEndpoint);
  const runtime = await startRuntime({
    port: 0,
    dataDir,
    dynamoEndpoint: proxy.endpoint,
    table: deployment.table,
    jwtSecret: SECRET,
    log: () => undefined,
    rateLimits: deployment.rateLimits,
    settings: {
      ...(deployment.subscriberShards ? { [env.subscriberShards]: String(deployment.subscriberShards) } : {}),
      ...(deployment.history ? { [env.history]: deployment.history } : {}),
    },
  });
  const http = httpClient(runtime.httpUrl, 1);
  const human = await mintToken(SECRET, { sub: "cost-human", tenant: TENANT, role: "human" });
  const runner = await BenchSocket.open(runtime.wsUrl, await mintToken(SECRET, { sub: "cost-runner", tenant: TENANT, role: "runner" }));
  const session = "cost_session";
  await runner.request({ action: "hello", sessions: [{ session_id: session }] });
  const inbox = await BenchSocket.open(runtime.wsUrl, human);
  const subscribed = await inbox.request({ action: "subscribe", sessions: "*", badges: false });
  if (subscribed.reply.type !== "subscribed") throw new Error(`subscribe: ${JSON.stringify(subscribed.reply)}`);
  // The inbox's badge moves with the request events it hears, and with the replies to the verdicts it gives.
  let heard: { type: string; id: string; resolve: () => void } | undefined;
  inbox.onFrame = (frame) => {
    if (heard && frame.type === heard.type && frame.elicitation_id === heard.id) heard.resolve();
  };
  const hears = (type: string, id: string) => new Promise<void>((resolve) => (heard = { type, id, resolve }));
  await sleep(200); // the subscribe's own stream reactions

  log(`cost: ${count} elicitations through the metering proxy, on ${deployment.table}`);
  const windows = { verdict: [] as PathWindow[], park: [] as PathWindow[], badge: [] as PathWindow[] };
  const clock = () => performance.timeOrigin + performance.now();
  const trace = traceCalls();
  const sockets = [runner, inbox];
  const messagesBefore = runner.messages.sent + runner.messages.received + inbox.messages.sent + inbox.messages.received;
  const firstCall = proxy.calls.length;
  const started = clock();
  let errors = 0;
  for (let i = 0; i < count; i++) {
    const id = `cost_${i}`;
    try {
      const up = hears("response.elicitation_request", id);
      const t0 = clock();
      const { reply } = await runner.request({ action: "elicit", session_id: session, elicitation_id: id, params: { message: `Approve step ${i}?` } });
      if (reply.type !== "elicitation.parked") throw new Error(JSON.stringify(reply));
      windows.park.push({ start: t0, end: clock() });
      await withTimeout(up, 10_000, "badge up");
      windows.badge.push({ start: t0, end: clock() });
      await settled(proxy, trace, thinkMs);
      const t1 = clock();
      const approval = { type: "approval", elicitation_id: id, action: "accept", answering_connection_id: subscribed.reply.connection_id };
      const [answer, verdict] = await Promise.all([http.call(human, "POST", `/v1/sessions/${session}/events`, approval), runner.verdict(id, 10_000)]);
      if (answer.status !== 200 || answer.body.resolved_at === undefined || !verdict) throw new Error(`verdict: HTTP ${answer.status}, frame ${Boolean(verdict)}`);
      windows.verdict.push({ start: t1, end: performance.timeOrigin + verdict.at });
      await settled(proxy, trace, thinkMs);
    } catch (error) {
      errors++;
      log(`cost ${i}: ${(error as Error).message}`);
    }
  }
  // Once, at the end, a human lists the sessions awaiting approval: the list finds this one at zero and
  // takes it out of the sparse index, the write its elicitations no longer make (and the one single-item
  // write whose capacity `ruleCheck` sets beside the rules).
  const listed = await http.call(human, "GET", "/v1/sessions?pending=true");
  if (listed.status !== 200 || listed.body.sessions.length !== 0) {
    errors++;
    log(`cost: the pending list answered ${listed.status} ${JSON.stringify(listed.body)}`);
  }
  await settled(proxy, trace, thinkMs);
  const ended = clock();
  trace.stop();
  const measured = {
    elicitations: count,
    errors,
    seconds: (ended - started) / 1000,
    dynamodb: proxy.calls.slice(firstCall).filter((c) => c.table === deployment.table),
    invocations: trace.invocations.filter((v) => v.start >= started && v.end !== undefined),
    invocationsCounted: Object.fromEntries(trace.counted),
    awsCalls: trace.calls.filter((c) => c.start >= started),
    wsMessages: sockets.reduce((n, s) => n + s.messages.sent + s.messages.received, 0) - messagesBefore,
    wsConnectionMinutes: (sockets.length * (ended - started)) / 60_000,
    httpRequests: count + 1,
    paths: {
      verdict: pathCalls(trace.calls, windows.verdict, paths.verdict),
      park: pathCalls(trace.calls, windows.park, paths.park),
      badge: pathCalls(trace.calls, windows.badge, paths.badge),
    },
  };
  runner.close();
  inbox.close();
  http.close();
  await sleep(200);
  await runtime.stop();
  await proxy.close();
  return measured;
}

export type CostMeasurement = Awaited<ReturnType<typeof costPhase>>;
