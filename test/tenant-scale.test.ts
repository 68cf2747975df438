/**
 * One tenant, many sessions, subscribers spread over several subscriber partitions: every count is
 * exact and every subscriber hears every event of its sessions exactly once, whatever shard it is in.
 * A subscriber written before the shard count grew is still heard, once, and pruned when it is gone.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { keys } from "../functions/domain/stores/keys.js";
import { DEFAULT_SUBSCRIBER_SHARDS, readConfig } from "../functions/shared/config.js";
import { domainOver } from "./support/domain.js";
import { eventually, sleep, startTollgate, type Harness, type TestSocket } from "./support/tollgate.js";

const SHARDS = 4;
const RUNNERS = 4;
const SESSIONS_PER_RUNNER = 6;
const PER_SESSION = 3;

let t: Harness;
let listeners: Listener[] = [];
beforeAll(async () => {
  t = await startTollgate({ settings: { TOLLGATE_SUBSCRIBER_SHARDS: String(SHARDS) } });
});
afterAll(async () => {
  await t?.stop();
});

interface Listener {
  socket: TestSocket;
  connectionId: string;
  /** The sessions it subscribed to; undefined for `*`. */
  sessions?: Set<string>;
}

const sessionIds = Array.from({ length: RUNNERS * SESSIONS_PER_RUNNER }, (_, i) => `scale_${i}`);

/** The subscriber rows in the table: partition and connection. */
async function subscriberRows() {
  return (await t.scan()).filter((i: any) => i.pk.S.includes("#SUBSCRIBERS")).map((i: any) => ({ pk: i.pk.S as string, connectionId: i.connection_id.S as string }));
}

/** Subscribers until they sit in at least three of the shards (a hash decides where each goes). */
async function subscribeAcrossShards(): Promise<Listener[]> {
  const listeners: Listener[] = [];
  for (let n = 0; n < 40; n++) {
    const socket = await t.socket(await t.token("human", `human-${n}`));
    const sessions = n % 2 === 0 ? undefined : new Set(sessionIds.filter((_, i) => i % 3 === n % 3));
    const reply = await socket.request({ action: "subscribe", sessions: sessions ? [...sessions] : "*" });
    expect(reply.type).toBe("subscribed");
    const known = new Set(listeners.map((l) => l.connectionId));
    const row = (await subscriberRows()).find((r) => !known.has(r.connectionId))!;
    listeners.push({ socket, connectionId: row.connectionId, sessions });
    if (listeners.length >= 6 && new Set((await subscriberRows()).map((r) => r.pk)).size >= 3) break;
  }
  return listeners;
}

/** A request whose reply may take long on a busy machine: every elicitation of the tenant is in flight at once. */
let refs = 0;
async function patiently(socket: TestSocket, frame: Record<string, unknown>) {
  const ref = `scale-${++refs}`;
  socket.send({ ...frame, ref });
  return socket.next((f) => f.ref === ref, 120_000);
}

const heard = (l: Listener, type: string, id: string) => l.socket.count((f) => f.type === type && f.elicitation_id === id);
const badges = (l: Listener, session: string) => l.socket.frames.filter((f) => f.type === "session.badge" && f.session_id === session).map((f) => f.pending_elicitations_count);
const hears = (l: Listener, session: string) => l.sessions === undefined || l.sessions.has(session);

async function serverCounts(human: string): Promise<number[]> {
  const res = await t.http(human, "GET", `/v1/sessions?ids=${sessionIds.join(",")}`);
  expect(res.status).toBe(200);
  const byId = new Map(res.body.sessions.map((s: any) => [s.session_id, s.pending_elicitations_count]));
  return sessionIds.map((id) => byId.get(id) as number);
}

it("keeps counts exact and reaches every subscriber in every shard exactly once per event", async () => {
  const runners = await Promise.all(Array.from({ length: RUNNERS }, async (_, r) => t.socket(await t.token("runner", `scale-runner-${r}`))));
  const owned = (r: number) => sessionIds.slice(r * SESSIONS_PER_RUNNER, (r + 1) * SESSIONS_PER_RUNNER);
  for (const [r, socket] of runners.entries()) expect((await socket.request({ action: "hello", sessions: owned(r).map((session_id) => ({ session_id })) })).type).toBe("hello.ok");

  listeners = await subscribeAcrossShards();
  const rows = await subscriberRows();
  expect(new Set(rows.map((r) => r.pk)).size).toBeGreaterThanOrEqual(3);
  for (const r of rows) expect(r.pk).toBe(keys.subscriber("acme", r.connectionId, SHARDS).pk);

  // Every elicitation of every session raised at once.
  const elicitations = runners.flatMap((_, r) => owned(r).flatMap((session) => Array.from({ length: PER_SESSION }, (_, k) => ({ r, session, id: `${session}_e${k}` }))));
  const parked = await Promise.all(elicitations.map((e) => patiently(runners[e.r], { action: "elicit", session_id: e.session, elicitation_id: e.id, params: { message: "ok?" } })));
  expect(parked.map((p) => p.type)).toEqual(elicitations.map(() => "elicitation.parked"));
  const human = await t.token("human", "scale-human");
  expect(await serverCounts(human)).toEqual(sessionIds.map(() => PER_SESSION));
  for (const l of listeners)
    await eventually(() => expect(sessionIds.filter((s) => hears(l, s)).map((s) => badges(l, s).at(-1))).toEqual(sessionIds.filter((s) => hears(l, s)).map(() => PER_SESSION)), 120_000);

  // Every one answered at once, half accepted.
  const answers = await Promise.all(
    elicitations.map((e, i) => t.http(human, "POST", `/v1/sessions/${e.session}/events`, { type: "approval", elicitation_id: e.id, action: i % 2 ? "decline" : "accept" })),
  );
  expect(answers.map((a) => a.status)).toEqual(elicitations.map(() => 200));
  for (const e of elicitations) await runners[e.r].next((f) => f.type === "elicitation.verdict" && f.elicitation_id === e.id, 120_000);
  await t.quietScan();

  expect(await serverCounts(human)).toEqual(sessionIds.map(() => 0));
  for (const e of elicitations) expect(runners[e.r].count((f) => f.type === "elicitation.verdict" && f.elicitation_id === e.id)).toBe(1);
  // What each subscriber heard, against what it should have: each event of its sessions once, no other.
  const tally = (l: Listener) => ({
    requests: elicitations.map((e) => heard(l, "response.elicitation_request", e.id)),
    resolved: elicitations.map((e) => heard(l, "response.elicitation_resolved", e.id)),
    // One badge per change of the count: up to PER_SESSION and back to 0, each step once.
    badges: sessionIds.map((s) => badges(l, s).length),
    last: sessionIds.map((s) => badges(l, s).at(-1)),
  });
  const due = (l: Listener) => ({
    requests: elicitations.map((e) => (hears(l, e.session) ? 1 : 0)),
    resolved: elicitations.map((e) => (hears(l, e.session) ? 1 : 0)),
    badges: sessionIds.map((s) => (hears(l, s) ? 2 * PER_SESSION : 0)),
    last: sessionIds.map((s) => (hears(l, s) ? 0 : undefined)),
  });
  // The last pushes may still be on their way when the table is quiet; once all arrived, none more comes.
  for (const l of listeners) await eventually(() => expect(tally(l)).toEqual(due(l)), 120_000);
  await sleep(1_000);
  for (const l of listeners) expect(tally(l)).toEqual(due(l));
}, 600_000);

it("still reaches, once, a subscriber whose row was written when there was one shard, and prunes both rows once it is gone", async () => {
  const moved = listeners.find((l) => keys.subscriber("acme", l.connectionId, SHARDS).pk !== "T#acme#SUBSCRIBERS")!;
  expect(moved).toBeDefined();
  const movedPk = keys.subscriber("acme", moved.connectionId, SHARDS).pk;
  // The same connection subscribed again by functions that had one shard: its row in the partition of before.
  const oneShard = domainOver(t, { config: { subscriberShards: 1 } });
  await oneShard.subscriptions.subscribe({ tenant: "acme", sub: "human-x", role: "human" }, moved.connectionId, "*", { badges: true });
  const twice = (await subscriberRows()).filter((r) => r.connectionId === moved.connectionId);
  expect(twice.map((r) => r.pk).sort()).toEqual(["T#acme#SUBSCRIBERS", movedPk].sort());

  const runner = await t.socket(await t.token("runner", "scale-runner-0"));
  await runner.request({ action: "elicit", session_id: "scale_0", elicitation_id: "moved_1", params: { message: "ok?" } });
  // Heard once, over the "*" it subscribed to again; before it, scale_0's badges only if its sessions had it.
  const before = hears(moved, "scale_0") ? 2 * PER_SESSION : 0;
  await eventually(() => expect([heard(moved, "response.elicitation_request", "moved_1"), badges(moved, "scale_0").at(-1), badges(moved, "scale_0").length]).toEqual([1, 1, before + 1]), 30_000);
  await t.quietScan();
  expect([heard(moved, "response.elicitation_request", "moved_1"), badges(moved, "scale_0").length]).toEqual([1, before + 1]);

  // It hangs up: its $disconnect removes the row of its shard; the row of before goes at the next push (410).
  await t.runtime.services.hangUp(moved.connectionId);
  await moved.socket.closed;
  await runner.request({ action: "elicit", session_id: "scale_0", elicitation_id: "moved_2", params: { message: "ok?" } });
  await eventually(async () => expect((await subscriberRows()).filter((r) => r.connectionId === moved.connectionId)).toEqual([]), 60_000);
}, 120_000);

it("takes a shard count from 1 to 100, and refuses anything else by name", () => {
  expect(readConfig({}).subscriberShards).toBe(DEFAULT_SUBSCRIBER_SHARDS);
  expect(readConfig({ TOLLGATE_SUBSCRIBER_SHARDS: "16" }).subscriberShards).toBe(16);
  for (const bad of ["0", "2.5", "101", "many"]) expect(() => readConfig({ TOLLGATE_SUBSCRIBER_SHARDS: bad })).toThrow(/TOLLGATE_SUBSCRIBER_SHARDS/);
});
