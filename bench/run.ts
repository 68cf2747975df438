/**
 * `npm run bench`: Tollgate's round trip against its floor, and 1,000 parked runners.
 *
 * DynamoDB Local is started here; the runtime (`local/main.ts`) runs as a child process against it
 * (TOLLGATE_DYNAMODB_ENDPOINT), so the floor is measured on the same instance and the runtime's
 * memory can be read from /proc. Runners, humans and the inbox subscriber live in this process.
 * Prints a table and writes bench/results/latest.json and bench/results/latency-cdf.svg.
 * Every knob is an environment variable (see `config` below and docs/performance.md).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import { dirname, join, relative } from "node:path";
import { execFileSync } from "node:child_process";
import { freePort, startDynamoLocal } from "../local/dynamodb.js";
import { root } from "../local/lambda.js";
import { mintToken } from "../local/tokens.js";
import { TollgateRunner } from "../sdk/runner.js";
import { BenchSocket, httpClient, pool, sleep, type Frame } from "./clients.js";
import { floorPhase } from "./floor.js";
import { gatewayFloorPhase } from "./gateway-floor.js";
import { findDynamoJava, memoryOf, startChildRuntime } from "./runtime.js";
import { cdfPoints, now, summarize, type Summary } from "./stats.js";
import { cdfSvg } from "./svg.js";

const int = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);

const config = {
  /** Round trips measured one after another (after the warm-up). */
  verdicts: int("BENCH_VERDICTS", 2000),
  warmup: int("BENCH_WARMUP", 300),
  /**
   * Pause after a park before the human answers, and after a verdict before the runner raises again
   * (round trip and badge phases). A human answers seconds later, so the raise's stream reactions
   * (inbox events, deadline schedule) are done by then; the load phase has no pause at all.
   */
  thinkMs: int("BENCH_THINK_MS", 25),
  floorSamples: int("BENCH_FLOOR_SAMPLES", 2000),
  badges: int("BENCH_BADGES", 500),
  loadRunners: int("BENCH_LOAD_RUNNERS", 1000),
  loadElicitations: int("BENCH_LOAD_ELICITATIONS", 10_000),
  humans: int("BENCH_HUMANS", 20),
  /** Hard bound on the load phase. */
  loadTimeoutSeconds: int("BENCH_LOAD_TIMEOUT_SECONDS", 360),
  /** `memory` (DynamoDB Local -inMemory) or `disk` (a -dbPath in a temp dir, as `npm start` does with TOLLGATE_DATA_DIR). */
  dynamodb: (process.env.BENCH_DYNAMODB ?? "memory") as "memory" | "disk",
  phases: (process.env.BENCH_PHASES ?? "floor,roundtrip,badge,load").split(","),
  /** Write a V8 CPU profile of the runtime child (node --cpu-prof) into this directory. */
  profileDir: process.env.BENCH_PROFILE_DIR,
  out: process.env.BENCH_OUT ?? join(root, "bench/results/latest.json"),
  /** Wait up to this long for the machine to go quiet (other processes under 0.3 cores) before starting. */
  quietWaitSeconds: int("BENCH_QUIET_WAIT_SECONDS", 60),
  /** Passed through to the runtime; its own defaults apply when unset. */
  runtimeEnv: {
    // The per-token limits stay on (their counter write is part of every raise and verdict) but far
    // above what one bench token sends: 2,000 verdicts in a minute from one human is the point here.
    TOLLGATE_RATE_LIMIT_RAISES_PER_MINUTE: "1000000",
    TOLLGATE_RATE_LIMIT_VERDICTS_PER_MINUTE: "1000000",
    ...Object.fromEntries(
      [
        "TOLLGATE_STREAM_POLL_MS",
        "TOLLGATE_STREAM_BATCH_SIZE",
        "TOLLGATE_RECONNECT_GRACE_SECONDS",
        "TOLLGATE_ESCALATION_GRACE_SECONDS",
        "TOLLGATE_RATE_LIMIT_RAISES_PER_MINUTE",
        "TOLLGATE_RATE_LIMIT_VERDICTS_PER_MINUTE",
      ].flatMap((k) => (process.env[k] ? [[k, process.env[k]!]] : [])),
    ),
  } as Record<string, string>,
};

const SECRET = "tollgate-bench-secret";
const TENANT = "bench";

function log(line: string) {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
    promise.then(
      (v) => (clearTimeout(timer), resolve(v)),
      (e) => (clearTimeout(timer), reject(e)),
    );
  });
}

function cpuSecondsOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks of 10 ms
  } catch {
    return NaN;
  }
}

/** Busy CPU seconds of the whole machine (all cores), from /proc/stat. */
function machineCpuSeconds(): number {
  const cpu = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
  const [user, nice, system, , , irq, softirq, steal] = cpu;
  return (user + nice + system + irq + softirq + steal) / 100;
}

/** CPU seconds used during a phase: by the runtime, DynamoDB Local, the bench itself, and everything else on the machine. */
function cpuMeter(runtimePid: number, javaPid: number | undefined) {
  const read = () => ({
    runtime: cpuSecondsOf(runtimePid),
    java: javaPid ? cpuSecondsOf(javaPid) : 0,
    bench: cpuSecondsOf(process.pid),
    machine: machineCpuSeconds(),
    at: Date.now(),
  });
  const start = read();
  return () => {
    const end = read();
    const d = (k: keyof typeof start) => end[k] - start[k];
    const wall = d("at") / 1000;
    const others = Math.max(0, d("machine") - d("runtime") - d("java") - d("bench"));
    return { wallSeconds: round(wall), runtime: round(d("runtime")), dynamodbLocal: round(d("java")), bench: round(d("bench")), otherProcesses: round(others), otherProcessesCores: round(others / wall) };
  };
}

/** Peak and current resident memory of the runtime (node) and of DynamoDB Local (java), sampled while it runs. */
function memoryWatch(runtimePid: number, javaPid: number | undefined) {
  const peak = { runtime: 0, java: 0 };
  const sample = () => {
    peak.runtime = Math.max(peak.runtime, memoryOf(runtimePid)?.rssMiB ?? 0);
    if (javaPid) peak.java = Math.max(peak.java, memoryOf(javaPid)?.rssMiB ?? 0);
  };
  const timer = setInterval(sample, 250);
  timer.unref();
  return {
    peak,
    stop() {
      clearInterval(timer);
      sample();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Round trip and park: one SDK runner, one human over HTTP, one verdict at a time.

async function roundTripPhase(wsUrl: string, http: ReturnType<typeof httpClient>, runnerToken: string, humanToken: string, count: number, session: string, thinkMs: number) {
  const runner = new TollgateRunner({ url: wsUrl, token: runnerToken, sessions: [{ session_id: session }] });
  await runner.connect();
  // Watch the raw frames the SDK receives (it does not surface `elicitation.parked`), on whatever socket it uses.
  const parked = new Map<string, (at: number) => void>();
  const sdk = runner as unknown as { receive(text: string): void };
  const receive = sdk.receive.bind(runner);
  sdk.receive = (text: string) => {
    const at = now();
    if (text.includes('"elicitation.parked"')) {
      const frame = JSON.parse(text) as Frame;
      parked.get(frame.elicitation_id)?.(at);
    }
    receive(text);
  };
  const park: number[] = [];
  const roundTrip: number[] = [];
  const httpReply: number[] = [];
  let errors = 0;
  for (let i = 0; i < count; i++) {
    const id = `${session}_${i}`;
    const parkedAt = new Promise<number>((r) => parked.set(id, r));
    const t0 = now();
    const verdict = runner.elicit({ sessionId: session, elicitationId: id, params: { message: `Approve bench step ${i}?` } }).then((v) => ({ v, at: now() }));
    try {
      park.push((await withTimeout(parkedAt, 10_000, "park")) - t0);
      parked.delete(id);
      if (thinkMs > 0) await sleep(thinkMs);
      const t1 = now();
      const answered = http.call(humanToken, "POST", `/v1/sessions/${session}/events`, { type: "approval", elicitation_id: id, action: "accept" }).then((r) => ({ r, at: now() }));
      const [{ r, at: repliedAt }, { v, at }] = await withTimeout(Promise.all([answered, verdict]), 10_000, "verdict");
      if (r.status !== 200 || v.action !== "accept") errors++;
      roundTrip.push(at - t1);
      httpReply.push(repliedAt - t1);
      if (thinkMs > 0) await sleep(thinkMs);
    } catch (error) {
      errors++;
      log(`round trip ${i}: ${(error as Error).message}`);
    }
  }
  runner.close();
  return { park, roundTrip, httpReply, errors };
}

// ---------------------------------------------------------------------------------------------
// Badge push: a runner raises, an inbox subscriber hears `session.badge` (through the stream).

async function badgePhase(wsUrl: string, runnerToken: string, humanToken: string, count: number, thinkMs: number) {
  const session = "bench_badge";
  const runner = await BenchSocket.open(wsUrl, runnerToken);
  await runner.request({ action: "hello", sessions: [{ session_id: session }] });
  const inbox = await BenchSocket.open(wsUrl, humanToken);
  const subscribed = await inbox.request({ action: "subscribe", sessions: [session] });
  if (subscribed.reply.type !== "subscribed") throw new Error(`subscribe: ${JSON.stringify(subscribed.reply)}`);
  let waiter: { count: number; resolve: (at: number) => void } | undefined;
  inbox.onFrame = (frame, at) => {
    if (frame.type === "session.badge" && frame.session_id === session && waiter && frame.pending_elicitations_count === waiter.count) waiter.resolve(at);
  };
  const badge = (expected: number) => new Promise<number>((resolve) => (waiter = { count: expected, resolve }));
  const raised: number[] = [];
  const resolved: number[] = [];
  let errors = 0;
  for (let i = 0; i < count; i++) {
    const id = `${session}_${i}`;
    try {
      const up = badge(1);
      const t0 = now();
      const { reply } = await runner.request({ action: "elicit", session_id: session, elicitation_id: id, params: { message: `Badge ${i}?` } });
      if (reply.type !== "elicitation.parked") throw new Error(JSON.stringify(reply));
      raised.push((await withTimeout(up, 10_000, "badge up")) - t0);
      if (thinkMs > 0) await sleep(thinkMs);
      const down = badge(0);
      const t1 = now();
      const cancelled = await runner.request({ action: "cancel", elicitation_id: id });
      if (cancelled.reply.type !== "elicitation.verdict") throw new Error(JSON.stringify(cancelled.reply));
      resolved.push((await withTimeout(down, 10_000, "badge down")) - t1);
      if (thinkMs > 0) await sleep(thinkMs);
    } catch (error) {
      errors++;
      log(`badge ${i}: ${(error as Error).message}`);
    }
  }
  runner.close();
  inbox.close();
  return { raised, resolved, errors };
}

// ---------------------------------------------------------------------------------------------
// Load: 1,000 runner connections parked at once, 10,000 elicitations, 20 humans answering.

interface Pending {
  runner: number;
  session: string;
  id: string;
  action: "accept" | "decline";
  postedAt?: number;
}

async function loadPhase(wsUrl: string, http: ReturnType<typeof httpClient>, humanToken: string, runtimePid: number, javaPid: number | undefined) {
  const N = config.loadRunners;
  const perRunner = Math.ceil(config.loadElicitations / N);
  const total = N * perRunner;
  const deadline = Date.now() + config.loadTimeoutSeconds * 1000;
  const errors: string[] = [];
  const error = (what: string) => {
    if (errors.length < 50) log(`load error: ${what}`);
    errors.push(what);
  };

  const inbox = await BenchSocket.open(wsUrl, humanToken);
  const sub = await inbox.request({ action: "subscribe", sessions: "*" });
  if (sub.reply.type !== "subscribed") error(`subscribe: ${JSON.stringify(sub.reply)}`);
  let inboxEvents = 0;
  inbox.onFrame = () => void inboxEvents++;

  log(`load: minting ${N} runner tokens and connecting`);
  const tokens = await Promise.all(Array.from({ length: N }, (_, i) => mintToken(SECRET, { sub: `load-runner-${i}`, tenant: TENANT, role: "runner" })));
  const connectStart = now();
  const runners = await pool(tokens, 50, async (token, i) => {
    const socket = await BenchSocket.open(wsUrl, token);
    const hello = await socket.request({ action: "hello", sessions: [{ session_id: `load_${i}` }] });
    if (hello.reply.type !== "hello.ok") error(`hello ${i}: ${JSON.stringify(hello.reply)}`);
    return socket;
  });
  const connectSeconds = (now() - connectStart) / 1000;

  const queue: Pending[] = [];
  const takers: ((p: Pending | undefined) => void)[] = [];
  const offer = (p: Pending) => {
    const taker = takers.shift();
    if (taker) taker(p);
    else queue.push(p);
  };
  const take = () => (queue.length > 0 ? Promise.resolve(queue.shift()) : new Promise<Pending | undefined>((r) => takers.push(r)));
  const all = new Map<string, Pending>();
  const park: number[] = [];
  const parkWave: number[] = [];
  const roundTrip: number[] = [];
  let parkedNow = 0;
  let maxParked = 0;
  let verdictsReceived = 0;
  let wrongVerdicts = 0;
  let firstPost = 0;
  let lastVerdict = 0;

  async function raise(i: number, k: number): Promise<Pending | undefined> {
    const p: Pending = { runner: i, session: `load_${i}`, id: `load_${i}_${k}`, action: (i + k) % 2 === 0 ? "accept" : "decline" };
    all.set(p.id, p);
    const { reply, sentAt, at } = await runners[i].request({ action: "elicit", session_id: p.session, elicitation_id: p.id, params: { message: `Load ${i}/${k}: approve?` } }, 60_000);
    if (reply.type !== "elicitation.parked") {
      error(`elicit ${p.id}: ${JSON.stringify(reply)}`);
      return undefined;
    }
    (k === 0 ? parkWave : park).push(at - sentAt);
    maxParked = Math.max(maxParked, ++parkedNow);
    return p;
  }

  async function await_(p: Pending): Promise<void> {
    const remaining = Math.max(1, deadline - Date.now());
    const got = await runners[p.runner].verdict(p.id, remaining);
    parkedNow--;
    if (!got) return error(`no verdict for ${p.id}`);
    verdictsReceived++;
    lastVerdict = got.at;
    if (got.frame.action !== p.action || got.frame.reason !== "answered") wrongVerdicts++;
    if (p.postedAt !== undefined) roundTrip.push(got.at - p.postedAt);
  }

  // Wave 1: every runner parks; nobody answers until all of them are parked at once.
  log(`load: ${N} runners parking`);
  const parkStart = now();
  const first = await pool(
    Array.from({ length: N }, (_, i) => i),
    N,
    (i) => raise(i, 0),
  );
  const parkAllSeconds = (now() - parkStart) / 1000;
  const parkedAtOnce = parkedNow;
  log(`load: ${parkedAtOnce} parked at once after ${parkAllSeconds.toFixed(1)} s`);
  // The inbox sees it too: every session's badge at 1 (through the stream).
  const badgesUpStart = now();
  while (Date.now() < deadline && [...runners.keys()].some((i) => inbox.badges.get(`load_${i}`) !== 1) && now() - badgesUpStart < 60_000) await sleep(50);
  const badgesAllOne = [...runners.keys()].every((i) => inbox.badges.get(`load_${i}`) === 1);
  const badgesUpSeconds = (now() - badgesUpStart) / 1000;

  const cpuBefore = { runtime: cpuSecondsOf(runtimePid), java: javaPid ? cpuSecondsOf(javaPid) : NaN };
  const loadStart = now();
  const runnerLoops = first.map(async (p, i) => {
    let current = p;
    for (let k = 1; current && k <= perRunner; k++) {
      await await_(current);
      if (k === perRunner || Date.now() > deadline) return;
      current = await raise(i, k);
      if (current) offer(current);
    }
  });
  for (const p of first) if (p) offer(p);
  let posted = 0;
  const humanTokens = await Promise.all(Array.from({ length: config.humans }, (_, h) => mintToken(SECRET, { sub: `load-human-${h}`, tenant: TENANT, role: "human" })));
  const humans = humanTokens.map(async (token) => {
    while (posted < total && Date.now() < deadline) {
      const p = await Promise.race([take(), sleep(Math.max(1, deadline - Date.now())).then(() => undefined)]);
      if (!p) return;
      posted++;
      p.postedAt = now();
      if (!firstPost) firstPost = p.postedAt;
      try {
        const res = await http.call(token, "POST", `/v1/sessions/${p.session}/events`, { type: "approval", elicitation_id: p.id, action: p.action });
        if (res.status !== 200) error(`verdict ${p.id}: HTTP ${res.status} ${JSON.stringify(res.body)}`);
      } catch (e) {
        error(`verdict ${p.id}: ${(e as Error).message}`);
      }
    }
  });
  const progress = setInterval(() => log(`load: ${verdictsReceived}/${total} verdicts, ${parkedNow} parked, queue ${queue.length}`), 10_000);
  await Promise.all(runnerLoops);
  for (const t of takers.splice(0)) t(undefined);
  await Promise.all(humans);
  clearInterval(progress);
  const elapsed = (lastVerdict - firstPost) / 1000;
  const cpuAfter = { runtime: cpuSecondsOf(runtimePid), java: javaPid ? cpuSecondsOf(javaPid) : NaN };

  // Settle: late duplicates (the stream's safety net) would show up now; the badges come down.
  const settleStart = now();
  while (now() - settleStart < 60_000 && [...runners.keys()].some((i) => inbox.badges.get(`load_${i}`) !== 0)) await sleep(100);
  await sleep(2_000);
  const inboxBadgesZero = [...runners.keys()].every((i) => inbox.badges.get(`load_${i}`) === 0);
  // And the server's own view: every session's count is 0, and no session is listed as pending.
  let serverCountsZero = true;
  for (let i = 0; i < N; i += 100) {
    const ids = Array.from({ length: Math.min(100, N - i) }, (_, j) => `load_${i + j}`);
    const res = await http.call(humanToken, "GET", `/v1/sessions?ids=${ids.join(",")}`);
    if (res.status !== 200) error(`GET sessions?ids: HTTP ${res.status}`);
    for (const s of res.body?.sessions ?? []) if (s.pending_elicitations_count !== 0) serverCountsZero = false;
  }
  let pendingListed = -1;
  for (let attempt = 0; attempt < 50; attempt++) {
    const res = await http.call(humanToken, "GET", `/v1/sessions?pending=true&limit=200`);
    pendingListed = (res.body?.sessions ?? []).filter((s: { session_id: string }) => s.session_id.startsWith("load_")).length;
    if (pendingListed === 0) break;
    await sleep(200);
  }

  let lost = 0;
  let doubled = 0;
  for (const p of all.values()) {
    const n = runners[p.runner].verdicts.get(p.id)?.length ?? 0;
    if (n === 0) lost++;
    if (n > 1) doubled += n - 1;
  }
  for (const [i, r] of runners.entries()) {
    if (r.errors.length) error(`runner ${i}: error frames ${JSON.stringify(r.errors.slice(0, 2))}`);
    if (r.closedUnexpectedly) error(`runner ${i}: connection closed`);
  }
  if (inbox.errors.length || inbox.closedUnexpectedly) error(`inbox: ${JSON.stringify(inbox.errors.slice(0, 2))} closed=${inbox.closedUnexpectedly}`);
  for (const r of runners) r.close();
  inbox.close();
  return {
    runners: N,
    humans: config.humans,
    elicitations: all.size,
    parkedAtOnce,
    maxParked,
    connectSeconds: round(connectSeconds),
    parkAllSeconds: round(parkAllSeconds),
    badgesAllOneAfterParking: badgesAllOne,
    badgesUpSeconds: round(badgesUpSeconds),
    verdicts: verdictsReceived,
    seconds: round(elapsed),
    throughput: round(verdictsReceived / elapsed),
    roundTrip: summarize(roundTrip),
    park: summarize(park),
    parkFirstWave: summarize(parkWave),
    errors: errors.length,
    errorSamples: errors.slice(0, 10),
    wrongVerdicts,
    lost,
    doubled,
    inboxEvents,
    badgesExact: inboxBadgesZero && serverCountsZero && pendingListed === 0,
    badges: { inboxAllZero: inboxBadgesZero, serverCountsZero, pendingListed },
    cpuSeconds: { runtime: round(cpuAfter.runtime - cpuBefore.runtime), dynamodbLocal: round(cpuAfter.java - cpuBefore.java) },
  };
}

const round = (x: number) => Math.round(x * 100) / 100;

// ---------------------------------------------------------------------------------------------

function machine() {
  let javaLine = "";
  try {
    javaLine = execFileSync("sh", ["-c", "java -version 2>&1 | head -1"], { encoding: "utf8" }).trim();
  } catch {
    /* keep what we have */
  }
  let commit = "";
  try {
    commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, encoding: "utf8" }).trim();
  } catch {
    /* not a checkout */
  }
  return { cpu: cpus()[0]?.model ?? "?", cores: cpus().length, memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version, java: javaLine, commit };
}

const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;

/** Cores busy with other processes over `ms` (this machine may be shared). */
async function othersBusy(ms: number): Promise<number> {
  const m0 = machineCpuSeconds();
  const b0 = cpuSecondsOf(process.pid);
  await sleep(ms);
  return Math.max(0, machineCpuSeconds() - m0 - (cpuSecondsOf(process.pid) - b0)) / (ms / 1000);
}

async function waitForQuiet(): Promise<number> {
  const until = Date.now() + config.quietWaitSeconds * 1000;
  let busy = await othersBusy(2_000);
  while (busy > 0.3 && Date.now() < until) {
    log(`other processes keep ${busy.toFixed(2)} cores busy: waiting for a quieter machine (at most ${config.quietWaitSeconds} s)`);
    busy = await othersBusy(5_000);
  }
  return round(busy);
}

async function main() {
  const started = Date.now();
  const othersAtStart = await waitForQuiet();
  const work = mkdtempSync(join(tmpdir(), "tollgate-bench-"));
  log(`DynamoDB Local (${config.dynamodb}) starting`);
  const dynamo = await startDynamoLocal(config.dynamodb === "disk" ? { dataDir: join(work, "dynamodb") } : {});
  const javaPid = findDynamoJava();
  const port = await freePort();
  if (config.profileDir) mkdirSync(config.profileDir, { recursive: true });
  log(`runtime starting on port ${port} (${work})`);
  const runtime = await startChildRuntime({
    port,
    dataDir: work,
    jwtSecret: SECRET,
    dynamoEndpoint: dynamo.endpoint,
    env: config.runtimeEnv,
    nodeFlags: config.profileDir ? ["--cpu-prof", `--cpu-prof-dir=${config.profileDir}`] : [],
    readyTimeoutMs: 120_000,
  });
  const memory = memoryWatch(runtime.pid, javaPid);
  const http = httpClient(runtime.httpUrl);
  const runnerToken = await mintToken(SECRET, { sub: "bench-runner", tenant: TENANT, role: "runner" });
  const humanToken = await mintToken(SECRET, { sub: "bench-human", tenant: TENANT, role: "human" });
  const results: Record<string, unknown> = {};
  const samples: Record<string, number[]> = {};
  const cpu: Record<string, unknown> = {};
  try {
    if (config.warmup > 0 && (config.phases.includes("roundtrip") || config.phases.includes("floor"))) {
      log(`warm-up: ${config.warmup} round trips`);
      await roundTripPhase(runtime.wsUrl, http, runnerToken, humanToken, config.warmup, "bench_warmup", 0);
      await floorPhase(dynamo.endpoint, Math.min(500, config.warmup), "warmup");
    }
    if (config.phases.includes("floor")) {
      log(`floor: ${config.floorSamples} samples`);
      const meter = cpuMeter(runtime.pid, javaPid);
      const floor = await floorPhase(dynamo.endpoint, config.floorSamples, "main");
      samples.floor = floor.total;
      samples.designFloor = floor.design;
      results.floor = { total: summarize(floor.total), wsEcho: summarize(floor.echo), conditionalUpdate: summarize(floor.update) };
      results.designFloor = summarize(floor.design);
      results.designFloorParts = { getItem: summarize(floor.designGet), transactWrite4: summarize(floor.designTransaction) };
      const gateway = await gatewayFloorPhase(runtime, dynamo.endpoint, runnerToken, Math.min(config.floorSamples, 1000), "main");
      samples.gatewayFloor = gateway.total;
      results.gatewayFloor = summarize(gateway.total);
      results.gatewayFloorParts = { httpRequest: summarize(gateway.httpHop), push: summarize(gateway.push) };
      cpu.floor = meter();
    }
    if (config.phases.includes("roundtrip")) {
      log(`round trip: ${config.verdicts} verdicts`);
      const meter = cpuMeter(runtime.pid, javaPid);
      const rt = await roundTripPhase(runtime.wsUrl, http, runnerToken, humanToken, config.verdicts, "bench_rt", config.thinkMs);
      const used = meter();
      cpu.roundTrip = { ...used, perLifecycleMs: { runtime: round((1000 * used.runtime) / config.verdicts), dynamodbLocal: round((1000 * used.dynamodbLocal) / config.verdicts) } };
      samples.roundTrip = rt.roundTrip;
      samples.park = rt.park;
      results.roundTrip = summarize(rt.roundTrip);
      results.park = summarize(rt.park);
      results.httpReply = summarize(rt.httpReply);
      results.roundTripErrors = rt.errors;
    }
    if (config.phases.includes("badge")) {
      log(`badge push: ${config.badges} raises`);
      const meter = cpuMeter(runtime.pid, javaPid);
      const b = await badgePhase(runtime.wsUrl, runnerToken, humanToken, config.badges, config.thinkMs);
      cpu.badge = meter();
      samples.badge = b.raised;
      results.badge = summarize(b.raised);
      results.badgeOnResolve = summarize(b.resolved);
      results.badgeErrors = b.errors;
    }
    if (config.phases.includes("floor") && config.phases.includes("roundtrip")) {
      const after = await floorPhase(dynamo.endpoint, Math.min(500, config.floorSamples), "after");
      results.floorAfter = summarize(after.total);
    }
    if (config.phases.includes("load")) {
      log(`load: ${config.loadRunners} runners, ${config.loadElicitations} elicitations, ${config.humans} humans`);
      const meter = cpuMeter(runtime.pid, javaPid);
      results.load = await loadPhase(runtime.wsUrl, http, humanToken, runtime.pid, javaPid);
      cpu.load = meter();
    }
  } finally {
    memory.stop();
    http.close();
  }
  const runtimeMemory = memoryOf(runtime.pid);
  const javaMemory = javaPid ? memoryOf(javaPid) : undefined;
  await runtime.stop();
  const runtimeLog = readFileSync(runtime.logFile, "utf8");
  const failuresFile = join(work, "stream-failures.jsonl");
  const streamFailures = existsSync(failuresFile) ? readFileSync(failuresFile, "utf8").split("\n").filter(Boolean).length : 0;
  const loggedErrors = runtimeLog.split("\n").filter((l) => /"level":"ERROR"|unexpected failure|stream poller:|streams handler failed|target failed/.test(l));
  await dynamo.stop();
  if (!process.env.BENCH_KEEP) rmSync(work, { recursive: true, force: true });

  const floorP50 = (results.floor as { total: Summary } | undefined)?.total.p50;
  const floorP99 = (results.floor as { total: Summary } | undefined)?.total.p99;
  const ratios: Record<string, unknown> = {};
  if (floorP50) {
    for (const name of ["gatewayFloor", "designFloor", "roundTrip", "park", "badge"] as const) {
      const s = results[name] as Summary | undefined;
      if (s) ratios[name] = { p50: ratio(s.p50, floorP50), p99: ratio(s.p99, floorP99!) };
    }
  }
  const output = {
    generatedAt: new Date().toISOString(),
    durationSeconds: Math.round((Date.now() - started) / 1000),
    machine: { ...machine(), otherProcessesCoresAtStart: othersAtStart },
    knobs: {
      dynamodbLocal: config.dynamodb === "disk" ? "disk (-dbPath in a temp dir, -sharedDb)" : "in memory (-inMemory, -sharedDb)",
      streamPollMs: Number(config.runtimeEnv.TOLLGATE_STREAM_POLL_MS ?? 50),
      streamBatchSize: Number(config.runtimeEnv.TOLLGATE_STREAM_BATCH_SIZE ?? 100),
      ...config,
      profileDir: config.profileDir ? relative(root, config.profileDir) : undefined,
      out: relative(root, config.out),
    },
    ...results,
    ratios,
    memory: {
      runtimeNode: { peakMiB: round(Math.max(runtimeMemory?.peakMiB ?? 0, memory.peak.runtime)), endMiB: round(runtimeMemory?.rssMiB ?? NaN), note: "VmHWM of the runtime process (node local/main.ts): gateway, stand-ins, stream poller and every handler" },
      dynamodbLocalJava: javaMemory
        ? { peakMiB: round(Math.max(javaMemory.peakMiB, memory.peak.java)), endMiB: round(javaMemory.rssMiB), note: "VmHWM of DynamoDB Local's java process (a child of the bench, shared by the runtime and the floor)" }
        : undefined,
    },
    cpu,
    runtimeHealth: { streamFailures, loggedErrors: loggedErrors.length, loggedErrorSamples: loggedErrors.slice(0, 5) },
    cdf: Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, cdfPoints(v)])),
  };
  mkdirSync(dirname(config.out), { recursive: true });
  writeFileSync(config.out, JSON.stringify(output, null, 2) + "\n");
  drawCdf(output, config.out);
  printTable(output as unknown as Record<string, any>);
}

/** The CDF picture next to the JSON (bench/results/latency-cdf.svg for latest.json). */
function drawCdf(output: { machine: { cores: number; cpu: string; node: string }; generatedAt: string; knobs: { dynamodb: string }; cdf: Record<string, [number, number][]> }, out: string) {
  const curves = [
    { key: "floor", label: "floor: ws echo + conditional UpdateItem", color: "#6b7280", dashed: true },
    { key: "gatewayFloor", label: "gateway floor: HTTP + UpdateItem + @connections", color: "#f59e0b", dashed: true },
    { key: "designFloor", label: "design floor: echo + Get + Txn(4)", color: "#a855f7", dashed: true },
    { key: "roundTrip", label: "verdict round trip (POST → promise)", color: "#2563eb" },
    { key: "park", label: "park (elicit → elicitation.parked)", color: "#16a34a" },
    { key: "badge", label: "badge push (raise → session.badge)", color: "#dc2626" },
  ].filter((c) => output.cdf[c.key]?.length);
  if (curves.length === 0) return;
  const m = output.machine;
  const svg = cdfSvg(
    "Tollgate local runtime: latency CDF against the floor",
    `${m.cores} cores, ${m.cpu.replace(/\s+/g, " ")}, Node ${m.node}, DynamoDB Local ${output.knobs.dynamodb}; ${output.generatedAt.slice(0, 10)}`,
    curves.map((c) => ({ label: c.label, color: c.color, dashed: c.dashed, points: output.cdf[c.key] })),
  );
  const name = out.endsWith("latest.json") ? "latency-cdf.svg" : `latency-cdf-${out.split("/").pop()!.replace(/\.json$/, ".svg")}`;
  writeFileSync(join(dirname(out), name), svg);
}

function printTable(o: Record<string, any>) {
  const row = (name: string, s: Summary | undefined, r?: { p50: number; p99: number }) =>
    s ? `${name.padEnd(34)} ${s.n.toString().padStart(6)} ${s.p50.toFixed(2).padStart(8)} ${s.p99.toFixed(2).padStart(8)} ${s.max.toFixed(2).padStart(9)}   ${r ? `${r.p50.toFixed(2)}x / ${r.p99.toFixed(2)}x` : ""}` : "";
  const lines = [
    "",
    `${"latency (ms)".padEnd(34)} ${"n".padStart(6)} ${"p50".padStart(8)} ${"p99".padStart(8)} ${"max".padStart(9)}   vs floor p50 / p99`,
    row("floor (ws echo + cond. UpdateItem)", o.floor?.total),
    row("  ws echo", o.floor?.wsEcho),
    row("  conditional UpdateItem", o.floor?.conditionalUpdate),
    row("gateway floor (HTTP+Update+push)", o.gatewayFloor, o.ratios?.gatewayFloor),
    row("  HTTP request (401)", o.gatewayFloorParts?.httpRequest),
    row("  @connections push to frame", o.gatewayFloorParts?.push),
    row("design floor (echo+Get+Txn4)", o.designFloor, o.ratios?.designFloor),
    row("  GetItem", o.designFloorParts?.getItem),
    row("  TransactWriteItems(4)", o.designFloorParts?.transactWrite4),
    row("verdict round trip", o.roundTrip, o.ratios?.roundTrip),
    row("park", o.park, o.ratios?.park),
    row("badge push", o.badge, o.ratios?.badge),
    row("badge push on resolve", o.badgeOnResolve),
    row("floor again (after)", o.floorAfter),
  ].filter(Boolean);
  if (o.load) {
    const l = o.load;
    lines.push(
      "",
      `load: ${l.runners} runners (${l.parkedAtOnce} parked at once), ${l.elicitations} elicitations, ${l.humans} humans`,
      `  throughput ${l.throughput} verdicts/s over ${l.seconds} s; round trip p50 ${l.roundTrip.p50} ms, p99 ${l.roundTrip.p99} ms, max ${l.roundTrip.max} ms`,
      `  park p50 ${l.park.p50} ms, p99 ${l.park.p99} ms (the first wave, ${l.runners} at once: p50 ${l.parkFirstWave.p50} ms, p99 ${l.parkFirstWave.p99} ms, all parked in ${l.parkAllSeconds} s)`,
      `  errors ${l.errors}, lost ${l.lost}, doubled ${l.doubled}, wrong ${l.wrongVerdicts}, badges exact ${l.badgesExact} (${JSON.stringify(l.badges)})`,
      `  CPU during the run: runtime ${l.cpuSeconds.runtime} s, DynamoDB Local ${l.cpuSeconds.dynamodbLocal} s`,
    );
  }
  if (o.cpu && Object.keys(o.cpu).length) {
    lines.push("", "CPU seconds per phase: runtime / DynamoDB Local / bench / other processes on this machine (cores busy)");
    for (const [phase, c] of Object.entries(o.cpu as Record<string, any>)) {
      lines.push(`  ${phase.padEnd(10)} ${c.runtime} / ${c.dynamodbLocal} / ${c.bench} / ${c.otherProcesses} (${c.otherProcessesCores}) over ${c.wallSeconds} s${c.perLifecycleMs ? `; per raise+verdict: runtime ${c.perLifecycleMs.runtime} ms, DynamoDB Local ${c.perLifecycleMs.dynamodbLocal} ms` : ""}`);
    }
  }
  lines.push(
    "",
    `memory peak: runtime (node) ${o.memory.runtimeNode.peakMiB} MiB; DynamoDB Local (java) ${o.memory.dynamodbLocalJava?.peakMiB ?? "?"} MiB`,
    `runtime health: stream failures ${o.runtimeHealth.streamFailures}, logged errors ${o.runtimeHealth.loggedErrors}`,
    `took ${o.durationSeconds} s; written ${o.knobs.out}`,
    "",
  );
  process.stdout.write(lines.join("\n"));
}

// A bench stopped by a signal still takes DynamoDB Local and the runtime down with it (their exit hooks).
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => process.exit(130));

// `npx tsx bench/run.ts --svg`: redraw the picture (and print the table) from the JSON alone.
const redraw = process.argv.includes("--svg");
(redraw
  ? Promise.resolve().then(() => {
      const output = JSON.parse(readFileSync(config.out, "utf8"));
      drawCdf(output, config.out);
      printTable(output);
    })
  : main()
).then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
