/**
 * Where one verdict round trip spends its time: runs the runtime in this process, observes every
 * AWS SDK call (DynamoDB, @connections, Scheduler, Streams) with the function that made it, and
 * prints the timeline of a few round trips plus the calls per round trip.
 *   npx tsx bench/trace.ts [round trips=200] [timelines=2] [think ms=30]
 */
import { startRuntime } from "../local/runtime.js";
import { mintToken } from "../local/tokens.js";
import { TollgateRunner } from "../sdk/runner.js";
import { httpClient } from "./clients.js";
import { traceCalls, type AwsCall } from "./cost/calls.js";

const count = Number(process.argv[2] ?? 200);
const timelines = Number(process.argv[3] ?? 2);
const think = Number(process.argv[4] ?? 30);
const SECRET = "trace-secret";
const now = () => performance.timeOrigin + performance.now(); // the clock traceCalls stamps calls with

// The limits stay on (their counter is part of each path) but high enough for one runner's hundreds.
const rateLimits = { raisesPerMinute: 1_000_000, verdictsPerMinute: 1_000_000 };
const runtime = await startRuntime({ port: 0, jwtSecret: SECRET, log: () => undefined, streamPollMs: Number(process.env.TOLLGATE_STREAM_POLL_MS ?? 50), rateLimits });
const http = httpClient(runtime.httpUrl);
const human = await mintToken(SECRET, { sub: "trace-human", tenant: "trace", role: "human" });
const runner = new TollgateRunner({ url: runtime.wsUrl, token: await mintToken(SECRET, { sub: "trace-runner", tenant: "trace", role: "runner" }), sessions: [{ session_id: "trace" }] });
await runner.connect();
const trace = traceCalls();
const totals = new Map<string, number>();
/** Moves the calls traced so far into the totals per function and call; returns them. */
const drain = () => {
  const calls = trace.calls.splice(0);
  for (const c of calls) totals.set(`${c.fn.padEnd(16)} ${c.what}`, (totals.get(`${c.fn.padEnd(16)} ${c.what}`) ?? 0) + 1);
  return calls;
};

const perTrip: AwsCall[][] = [];
const durations: number[] = [];
for (let i = 0; i < count; i++) {
  const id = `trace_${i}`;
  let onParked!: () => void;
  const isParked = new Promise<void>((r) => (onParked = r));
  const verdict = runner.elicit({ sessionId: "trace", elicitationId: id, params: { message: `trace ${i}` }, onParked });
  await isParked;
  await new Promise((r) => setTimeout(r, think)); // a human answers later: the raise's own reactions are done by then
  drain();
  const t0 = now();
  let t1 = 0;
  const [res] = await Promise.all([http.call(human, "POST", "/v1/sessions/trace/events", { type: "approval", elicitation_id: id, action: "accept" }), verdict.then(() => (t1 = now()))]);
  if (res.status !== 200) throw new Error(`HTTP ${res.status} ${JSON.stringify(res.body)}`);
  durations.push(t1 - t0);
  const calls = drain();
  perTrip.push([
    ...calls.filter((c) => c.start >= t0 && c.start <= t1).map((c) => ({ ...c, start: c.start - t0, end: (c.end ?? t1) - t0 })),
    { fn: "(bench)", what: "verdict in the SDK", start: t1 - t0, end: t1 - t0 },
  ]);
  await new Promise((r) => setTimeout(r, think));
}
durations.sort((a, b) => a - b);
console.log(`${count} round trips (POST sent -> verdict in the SDK): p50 ${durations[count >> 1].toFixed(2)} ms\n`);
for (const trip of perTrip.slice(-timelines)) {
  console.log("timeline of one round trip (ms from the POST):");
  for (const c of trip) console.log(`  ${c.start.toFixed(2).padStart(7)} .. ${c.end!.toFixed(2).padStart(7)}  ${(c.end! - c.start).toFixed(2).padStart(6)}  ${c.fn.padEnd(16)} ${c.what}`);
  console.log("");
}
const byKind = new Map<string, { n: number; ms: number }>();
for (const trip of perTrip)
  for (const c of trip) {
    const k = `${c.fn.padEnd(16)} ${c.what}`;
    const e = byKind.get(k) ?? { n: 0, ms: 0 };
    e.n++;
    e.ms += c.end! - c.start;
    byKind.set(k, e);
  }
console.log("calls started during round trips, per round trip (count, mean ms each):");
for (const [k, e] of [...byKind].sort((a, b) => b[1].n - a[1].n)) console.log(`  ${(e.n / count).toFixed(2).padStart(6)}  ${(e.ms / e.n).toFixed(2).padStart(6)} ms  ${k}`);
drain();
console.log("\nevery call over the whole run, per round trip (raise, verdict, stream, timers):");
for (const [k, n] of [...totals].sort((a, b) => b[1] - a[1])) console.log(`  ${(n / count).toFixed(2).padStart(6)}  ${k}`);
runner.close();
http.close();
trace.stop();
await runtime.stop();
process.exit(0);
