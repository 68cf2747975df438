/**
 * Load: many runner connections parked at once (each its own token, socket and session), then
 * elicitation after elicitation, answered by a few humans over HTTP, one inbox tab subscribed to all.
 */
import { mintToken } from "../../local/tokens.js";
import { BenchSocket, pool, sleep, type httpClient } from "../clients.js";
import { log, SECRET, TENANT } from "../config.js";
import { cpuSecondsOf } from "../meters.js";
import { memoryOf } from "../runtime.js";
import { hundredths, now, summarize } from "../stats.js";
import { checkLoad, settleMs } from "./load-check.js";

export interface LoadOptions {
  wsUrl: string;
  http: ReturnType<typeof httpClient>;
  humanToken: string;
  runtimePid: number;
  javaPid: number | undefined;
  runners: number;
  elicitations: number;
  humans: number;
  timeoutSeconds: number;
  /** Every socket of the phase pings this often (the gateway closes one that is silent for 10 minutes). */
  pingSeconds: number;
}

export interface Pending {
  runner: number;
  session: string;
  id: string;
  action: "accept" | "decline";
  postedAt?: number;
}

/** Errors of the phase: all counted, the first few logged. */
export function errorLog() {
  const errors: string[] = [];
  const error = (what: string) => {
    if (errors.length < 50) log(`load error: ${what}`);
    errors.push(what);
  };
  return { errors, error };
}

/** Elicitations waiting for a human: first come, first answered. */
function workQueue() {
  const queue: Pending[] = [];
  const takers: ((p: Pending | undefined) => void)[] = [];
  return {
    queue,
    offer(p: Pending) {
      const taker = takers.shift();
      if (taker) taker(p);
      else queue.push(p);
    },
    take: () => (queue.length > 0 ? Promise.resolve(queue.shift()) : new Promise<Pending | undefined>((r) => takers.push(r))),
    /** Every human still waiting gets nothing: the work is done. */
    close: () => {
      for (const t of takers.splice(0)) t(undefined);
    },
  };
}

/** Resident MiB of the runtime and DynamoDB Local now. */
function residentNow(o: LoadOptions) {
  return { runtime: memoryOf(o.runtimePid)?.rssMiB ?? NaN, java: o.javaPid ? (memoryOf(o.javaPid)?.rssMiB ?? NaN) : NaN };
}

async function connectRunners(o: LoadOptions, error: (what: string) => void) {
  log(`load: minting ${o.runners} runner tokens and connecting`);
  const tokens = await Promise.all(Array.from({ length: o.runners }, (_, i) => mintToken(SECRET, { sub: `load-runner-${i}`, tenant: TENANT, role: "runner" })));
  let connected = 0;
  const progress = setInterval(() => log(`load: ${connected}/${o.runners} runners connected`), 10_000);
  try {
    return await pool(tokens, 50, async (token, i) => {
      const socket = await BenchSocket.open(o.wsUrl, token);
      socket.keepAlive(o.pingSeconds * 1000);
      const hello = await socket.request({ action: "hello", sessions: [{ session_id: `load_${i}` }] });
      if (hello.reply.type !== "hello.ok") error(`hello ${i}: ${JSON.stringify(hello.reply)}`);
      connected++;
      return socket;
    });
  } finally {
    clearInterval(progress);
  }
}

export async function loadPhase(o: LoadOptions) {
  const N = o.runners;
  const perRunner = Math.ceil(o.elicitations / N);
  const total = N * perRunner;
  const deadline = Date.now() + o.timeoutSeconds * 1000;
  const { errors, error } = errorLog();

  const inbox = await BenchSocket.open(o.wsUrl, o.humanToken);
  inbox.keepAlive(o.pingSeconds * 1000);
  const sub = await inbox.request({ action: "subscribe", sessions: "*" });
  if (sub.reply.type !== "subscribed") error(`subscribe: ${JSON.stringify(sub.reply)}`);
  let inboxEvents = 0;
  inbox.onFrame = () => void inboxEvents++;

  const idle = residentNow(o);
  const connectStart = now();
  const runners = await connectRunners(o, error);
  const connectSeconds = (now() - connectStart) / 1000;

  const work = workQueue();
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

  // A whole wave is in flight at once: each elicit may wait as long as the phase has left.
  async function raise(i: number, k: number): Promise<Pending | undefined> {
    const p: Pending = { runner: i, session: `load_${i}`, id: `load_${i}_${k}`, action: (i + k) % 2 === 0 ? "accept" : "decline" };
    all.set(p.id, p);
    const { reply, sentAt, at } = await runners[i].request(
      { action: "elicit", session_id: p.session, elicitation_id: p.id, params: { message: `Load ${i}/${k}: approve?` } },
      Math.max(60_000, deadline - Date.now()),
    );
    if (reply.type !== "elicitation.parked") {
      error(`elicit ${p.id}: ${JSON.stringify(reply)}`);
      return undefined;
    }
    (k === 0 ? parkWave : park).push(at - sentAt);
    maxParked = Math.max(maxParked, ++parkedNow);
    return p;
  }

  async function awaitVerdict(p: Pending): Promise<void> {
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
  const parked = residentNow(o);
  log(`load: ${parkedAtOnce} parked at once after ${parkAllSeconds.toFixed(1)} s`);
  // The inbox sees it too: every session's badge at 1 (through the stream).
  const sessionsAt = (n: number) => [...runners.keys()].every((i) => inbox.badges.get(`load_${i}`) === n);
  const badgesUpStart = now();
  while (Date.now() < deadline && !sessionsAt(1) && now() - badgesUpStart < settleMs(N)) await sleep(50);
  const badgesAllOne = sessionsAt(1);
  const badgesUpSeconds = (now() - badgesUpStart) / 1000;

  const cpuBefore = { runtime: cpuSecondsOf(o.runtimePid), java: o.javaPid ? cpuSecondsOf(o.javaPid) : NaN };
  const runnerLoops = first.map(async (p, i) => {
    let current = p;
    for (let k = 1; current && k <= perRunner; k++) {
      await awaitVerdict(current);
      if (k === perRunner || Date.now() > deadline) return;
      current = await raise(i, k);
      if (current) work.offer(current);
    }
  });
  for (const p of first) if (p) work.offer(p);
  let posted = 0;
  const humanTokens = await Promise.all(Array.from({ length: o.humans }, (_, h) => mintToken(SECRET, { sub: `load-human-${h}`, tenant: TENANT, role: "human" })));
  const humans = humanTokens.map(async (token) => {
    while (posted < total && Date.now() < deadline) {
      const p = await Promise.race([work.take(), sleep(Math.max(1, deadline - Date.now())).then(() => undefined)]);
      if (!p) return;
      posted++;
      p.postedAt = now();
      if (!firstPost) firstPost = p.postedAt;
      try {
        const res = await o.http.call(token, "POST", `/v1/sessions/${p.session}/events`, { type: "approval", elicitation_id: p.id, action: p.action });
        if (res.status !== 200) error(`verdict ${p.id}: HTTP ${res.status} ${JSON.stringify(res.body)}`);
      } catch (e) {
        error(`verdict ${p.id}: ${(e as Error).message}`);
      }
    }
  });
  const progress = setInterval(() => log(`load: ${verdictsReceived}/${total} verdicts, ${parkedNow} parked, queue ${work.queue.length}`), 10_000);
  await Promise.all(runnerLoops);
  work.close();
  await Promise.all(humans);
  clearInterval(progress);
  const elapsed = (lastVerdict - firstPost) / 1000;
  const cpuAfter = { runtime: cpuSecondsOf(o.runtimePid), java: o.javaPid ? cpuSecondsOf(o.javaPid) : NaN };

  const checked = await checkLoad({ http: o.http, humanToken: o.humanToken, inbox, runners, all, error, sessionsAt });
  for (const r of runners) r.close();
  inbox.close();
  return {
    runners: N,
    humans: o.humans,
    elicitations: all.size,
    parkedAtOnce,
    maxParked,
    connectSeconds: hundredths(connectSeconds),
    parkAllSeconds: hundredths(parkAllSeconds),
    badgesAllOneAfterParking: badgesAllOne,
    badgesUpSeconds: hundredths(badgesUpSeconds),
    verdicts: verdictsReceived,
    seconds: hundredths(elapsed),
    throughput: hundredths(verdictsReceived / elapsed),
    roundTrip: summarize(roundTrip),
    park: summarize(park),
    parkFirstWave: summarize(parkWave),
    errors: errors.length,
    errorSamples: errors.slice(0, 10),
    wrongVerdicts,
    ...checked,
    inboxEvents,
    memoryPerParkedRunnerKiB: {
      runtime: hundredths(((parked.runtime - idle.runtime) * 1024) / Math.max(1, parkedAtOnce)),
      dynamodbLocal: hundredths(((parked.java - idle.java) * 1024) / Math.max(1, parkedAtOnce)),
      note: "resident memory (VmRSS) once every runner is connected and parked, minus before the first connected, over the runners parked at once",
    },
    cpuSeconds: { runtime: hundredths(cpuAfter.runtime - cpuBefore.runtime), dynamodbLocal: hundredths(cpuAfter.java - cpuBefore.java) },
  };
}
