/**
 * Reminders end to end on the local runtime: a target with `remind_after_seconds` that wants
 * `elicitation.reminder` gets one per interval while the elicitation stays pending, at most
 * `remind_times`, none once it is resolved or at its deadline; each round is a one-time schedule
 * that outlives a restart, and a round fired more than once sends one reminder. Deliveries go to a
 * loopback receiver and are verified with the `standardwebhooks` library; the test moves the clock.
 */
import { randomUUID } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { RuntimeOptions } from "../../local/runtime.js";
import { scheduleName, timerKeys } from "../../functions/domain/timers.js";
import { deliveriesEnded, deliveriesTo } from "../support/deliveries.js";
import { startReceiver, type Receiver } from "../support/receiver.js";
import { eventually, startTollgate, type Harness } from "../support/tollgate.js";

const INTERVAL_MS = 60_000;
// Every receiver here answers: a timeout would only ever fire on a loaded machine, and its retry
// sends the same reminder again (at least once, the same webhook-id), which the counts below forbid.
const options = { notifyRetryMs: [200, 200], notifyTimeoutMs: 10_000 };

let receiver: Receiver;
const running = new Set<Harness>();
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  for (const h of running) await h.stop();
  await receiver?.close();
});

/**
 * A runtime of its own per test: its clock starts at the wall clock's time, so the deliveries'
 * `webhook-timestamp` stays within the library's five minutes of tolerance.
 */
async function fresh(more: Partial<RuntimeOptions> = {}): Promise<Harness> {
  const h = await startTollgate({ ...options, ...more });
  running.add(h);
  return h;
}

async function stop(h: Harness) {
  running.delete(h);
  await h.stop();
}

async function target(h: Harness, id: string, body: Record<string, unknown>): Promise<Webhook> {
  const reply = await h.http(await h.token("service", "svc"), "PUT", `/v1/notification-targets/${id}`, { kind: "webhook", url: receiver.url(`/${id}`), ...body });
  expect(reply.status).toBe(201);
  return new Webhook(reply.body.secret);
}

async function raise(h: Harness, session: string, id: string, timeoutSeconds?: number) {
  const runner = await h.token("runner");
  await h.http(runner, "PUT", `/v1/sessions/${session}`, {});
  const event = { type: "response.elicitation_request", elicitation_id: id, params: { message: `${id}?` }, ...(timeoutSeconds ? { timeout_seconds: timeoutSeconds } : {}) };
  expect((await h.http(runner, "POST", `/v1/sessions/${session}/events`, event)).status).toBe(201);
}

const roundName = (elicitationId: string, targetId: string, round: number) => scheduleName("reminder", timerKeys.reminder("acme", elicitationId, targetId, round));
const pending = (h: Harness, elicitationId: string, targetId: string, round: number) => h.runtime.pendingSchedules().includes(roundName(elicitationId, targetId, round));

/** The events recorded for delivery to a target. */
const eventsTo = async (h: Harness, targetId: string) => (await deliveriesTo(h, targetId)).map((d) => d.eventId);

/** What reached a target's path, each verified with the library (it throws on a bad signature). */
const received = (hook: Webhook, path: string) => receiver.at(`/${path}`).map((r) => ({ id: r.headers["webhook-id"], ...(hook.verify(r.body, r.headers) as { type: string; data: any; link?: any }) }));

/** `count` reminders reached the target, each once, and every attempt that sent one has ended (so the clock may move). */
async function expectReminders(h: Harness, hook: Webhook, targetId: string, elicitationId: string, count: number) {
  await eventually(() => expect(receiver.at(`/${targetId}`)).toHaveLength(count), 20_000);
  await deliveriesEnded(h, targetId);
  const got = received(hook, targetId);
  for (const r of got) {
    expect(r).toMatchObject({ type: "elicitation.reminder", data: { type: "response.elicitation_request", elicitation_id: elicitationId, params: { message: `${elicitationId}?` } } });
    // Each reminder carries the target's approval link, as the request did.
    expect(r.link?.token).toEqual(expect.any(String));
  }
  expect(new Set(got.map((r) => r.id)).size).toBe(count);
}

it("reminds once per interval, at most remind_times times, signed and verified", async () => {
  const t = await fresh();
  const hook = await target(t, "nag", { events: ["elicitation.reminder"], sessions: ["conv_nag"], remind_after_seconds: 60, remind_times: 2 });
  await raise(t, "conv_nag", "el_nag");
  await t.scheduled(roundName("el_nag", "nag", 1));
  await t.elapse(INTERVAL_MS / 2);
  expect(await eventsTo(t, "nag")).toEqual([]);
  expect(pending(t, "el_nag", "nag", 1)).toBe(true);
  await t.elapse(INTERVAL_MS / 2);
  await expectReminders(t, hook, "nag", "el_nag", 1);
  // The next round counts from this reminder.
  expect(pending(t, "el_nag", "nag", 2)).toBe(true);
  await t.elapse(INTERVAL_MS);
  await expectReminders(t, hook, "nag", "el_nag", 2);
  expect(pending(t, "el_nag", "nag", 3)).toBe(false);
  await t.elapse(2 * INTERVAL_MS);
  await t.quietScan();
  expect((await eventsTo(t, "nag")).sort()).toEqual(["el_nag.reminder.1", "el_nag.reminder.2"]);
  expect(receiver.at("/nag")).toHaveLength(2);
});

it("stops once the elicitation is resolved", async () => {
  const t = await fresh();
  const hook = await target(t, "stops", { events: ["elicitation.reminder"], sessions: ["conv_stops"], remind_after_seconds: 60 });
  await raise(t, "conv_stops", "el_stops");
  await t.scheduled(roundName("el_stops", "stops", 1));
  await t.elapse(INTERVAL_MS);
  await expectReminders(t, hook, "stops", "el_stops", 1);
  const human = await t.token("human");
  expect((await t.http(human, "POST", "/v1/sessions/conv_stops/events", { type: "approval", elicitation_id: "el_stops", action: "accept" })).status).toBe(200);
  // Round 2 still fires, finds it resolved, and schedules nothing more.
  expect(pending(t, "el_stops", "stops", 2)).toBe(true);
  await t.elapse(INTERVAL_MS);
  expect(pending(t, "el_stops", "stops", 2)).toBe(false);
  expect(pending(t, "el_stops", "stops", 3)).toBe(false);
  await t.quietScan();
  expect(await eventsTo(t, "stops")).toEqual(["el_stops.reminder.1"]);
  expect(receiver.at("/stops")).toHaveLength(1);
});

it("sends none at or after the deadline", async () => {
  const t = await fresh();
  const hook = await target(t, "late", { events: ["elicitation.reminder"], sessions: ["conv_late"], remind_after_seconds: 60, remind_times: 10 });
  // Its first round would fall after the deadline: never scheduled.
  await target(t, "too-late", { events: ["elicitation.reminder"], sessions: ["conv_late"], remind_after_seconds: 180 });
  await raise(t, "conv_late", "el_late", 150);
  await t.scheduled(roundName("el_late", "late", 1));
  expect(pending(t, "el_late", "too-late", 1)).toBe(false);
  await t.elapse(INTERVAL_MS);
  await expectReminders(t, hook, "late", "el_late", 1);
  await t.elapse(INTERVAL_MS);
  await expectReminders(t, hook, "late", "el_late", 2);
  // A third round would come at about 180 s, after the 150 s deadline.
  expect(pending(t, "el_late", "late", 3)).toBe(false);
  await t.elapse(2 * INTERVAL_MS);
  const read = await t.http(await t.token("human"), "GET", "/v1/elicitations/el_late");
  expect(read.body.verdict?.reason).toBe("timeout");
  // A round that fires late anyway (as Scheduler's retries may) sends nothing.
  await t.runtime.invoke("timerReminder", { tenant: "acme", elicitation_id: "el_late", target_id: "late", round: 3 });
  await t.quietScan();
  expect((await eventsTo(t, "late")).sort()).toEqual(["el_late.reminder.1", "el_late.reminder.2"]);
  expect(await eventsTo(t, "too-late")).toEqual([]);
  expect(receiver.at("/late")).toHaveLength(2);
});

it("a target without an interval, or not wanting reminders, gets none; one that drops its interval stops", async () => {
  const t = await fresh();
  const hook = await target(t, "wants", { events: ["elicitation.reminder"], sessions: ["conv_some"], remind_after_seconds: 60 });
  await target(t, "no-interval", { sessions: ["conv_some"] });
  await target(t, "no-event", { events: ["elicitation.requested"], sessions: ["conv_some"], remind_after_seconds: 60 });
  await target(t, "elsewhere", { events: ["elicitation.reminder"], sessions: ["conv_other"], remind_after_seconds: 60 });
  await raise(t, "conv_some", "el_some");
  await t.scheduled(roundName("el_some", "wants", 1));
  for (const other of ["no-interval", "no-event", "elsewhere"]) expect(pending(t, "el_some", other, 1), other).toBe(false);
  await t.elapse(INTERVAL_MS);
  await expectReminders(t, hook, "wants", "el_some", 1);
  await eventually(() => expect(receiver.at("/no-event")).toHaveLength(1), 20_000);
  await eventually(() => expect(receiver.at("/no-interval")).toHaveLength(1), 20_000);
  expect(await eventsTo(t, "no-interval")).toEqual(["el_some.requested"]);
  expect(await eventsTo(t, "no-event")).toEqual(["el_some.requested"]);
  expect(await eventsTo(t, "elsewhere")).toEqual([]);
  // The target drops its interval: the round already scheduled finds it and stops.
  const service = await t.token("service", "svc");
  expect((await t.http(service, "PUT", "/v1/notification-targets/wants", { kind: "webhook", url: receiver.url("/wants"), events: ["elicitation.reminder"], sessions: ["conv_some"] })).status).toBe(
    200,
  );
  expect(pending(t, "el_some", "wants", 2)).toBe(true);
  await t.elapse(INTERVAL_MS);
  expect(pending(t, "el_some", "wants", 3)).toBe(false);
  await t.quietScan();
  expect(await eventsTo(t, "wants")).toEqual(["el_some.reminder.1"]);
});

it("a changed interval applies after the round already scheduled, which keeps its time", async () => {
  const t = await fresh();
  const hook = await target(t, "slower", { events: ["elicitation.reminder"], sessions: ["conv_slower"], remind_after_seconds: 60, remind_times: 3 });
  await raise(t, "conv_slower", "el_slower");
  await t.scheduled(roundName("el_slower", "slower", 1));
  await t.elapse(INTERVAL_MS);
  await expectReminders(t, hook, "slower", "el_slower", 1);
  expect(pending(t, "el_slower", "slower", 2)).toBe(true);
  // Twice the interval now: round 2 was scheduled with the old one and comes at its time.
  const service = await t.token("service", "svc");
  const changed = { kind: "webhook", url: receiver.url("/slower"), events: ["elicitation.reminder"], sessions: ["conv_slower"], remind_after_seconds: 120, remind_times: 3 };
  expect((await t.http(service, "PUT", "/v1/notification-targets/slower", changed)).status).toBe(200);
  await t.elapse(INTERVAL_MS);
  await expectReminders(t, hook, "slower", "el_slower", 2);
  // Round 3 counts the new interval from round 2.
  expect(pending(t, "el_slower", "slower", 3)).toBe(true);
  await t.elapse(INTERVAL_MS);
  await t.quietScan();
  expect(receiver.at("/slower")).toHaveLength(2);
  await t.elapse(INTERVAL_MS);
  await expectReminders(t, hook, "slower", "el_slower", 3);
});

it("remind_times is shown, 3 by default; bad values are bad_request and change nothing", async () => {
  const t = await fresh();
  const service = await t.token("service", "svc");
  const put = (id: string, body: Record<string, unknown>) => t.http(service, "PUT", `/v1/notification-targets/${id}`, { kind: "webhook", url: receiver.url(`/${id}`), ...body });
  expect((await put("bounds", { remind_after_seconds: 60 })).body).toMatchObject({ remind_after_seconds: 60, remind_times: 3 });
  expect((await put("bounds", { remind_after_seconds: 90, remind_times: 24 })).body).toMatchObject({ remind_after_seconds: 90, remind_times: 24 });
  const before = (await t.http(service, "GET", "/v1/notification-targets/bounds")).body;
  expect(before).toMatchObject({ remind_after_seconds: 90, remind_times: 24 });
  const bad = [
    { remind_after_seconds: 60, remind_times: 0 },
    { remind_after_seconds: 60, remind_times: 25 },
    { remind_after_seconds: 60, remind_times: 1.5 },
    { remind_after_seconds: 60, remind_times: "3" },
    { remind_after_seconds: 60, remind_times: null },
    { remind_times: 2 },
    { remind_after_seconds: 0 },
    { remind_after_seconds: 59 },
    { remind_after_seconds: 604_801 },
    { remind_after_seconds: 90.5 },
  ];
  for (const body of bad) {
    for (const id of ["bounds", "bounds-new"]) {
      const reply = await put(id, body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body.error.code).toBe("bad_request");
      expect(reply.body.error.message).toMatch(/remind_(times|after_seconds)/);
    }
  }
  expect((await t.http(service, "GET", "/v1/notification-targets/bounds")).body).toEqual(before);
  expect((await t.http(service, "GET", "/v1/notification-targets/bounds-new")).status).toBe(404);
  // Without an interval there are no reminders, and no count to show.
  const plain = await put("bounds", {});
  expect(plain.body.remind_after_seconds).toBeUndefined();
  expect(plain.body.remind_times).toBeUndefined();
});

it("a round fired twice sends one reminder (every schedule and stream batch delivered twice)", async () => {
  const twice = await fresh({ redeliver: true });
  const hook = await target(twice, "twice", { events: ["elicitation.reminder"], sessions: ["conv_twice"], remind_after_seconds: 60, remind_times: 2 });
  await raise(twice, "conv_twice", "el_twice");
  await twice.scheduled(roundName("el_twice", "twice", 1));
  await twice.elapse(INTERVAL_MS);
  await expectReminders(twice, hook, "twice", "el_twice", 1);
  await twice.elapse(INTERVAL_MS);
  await expectReminders(twice, hook, "twice", "el_twice", 2);
  // Round 1 once more, long after: its delivery is there, nothing goes out again.
  await twice.runtime.invoke("timerReminder", { tenant: "acme", elicitation_id: "el_twice", target_id: "twice", round: 1 });
  await twice.elapse(INTERVAL_MS);
  await twice.quietScan();
  expect((await eventsTo(twice, "twice")).sort()).toEqual(["el_twice.reminder.1", "el_twice.reminder.2"]);
  expect(received(hook, "twice").map((r) => r.type)).toEqual(["elicitation.reminder", "elicitation.reminder"]);
});

it("a scheduled round outlives a runtime restart and is sent once by the next runtime", async () => {
  const table = `tollgate-${randomUUID().slice(0, 8)}`;
  const first = await fresh({ table });
  const hook = await target(first, "restart", { events: ["elicitation.reminder"], sessions: ["conv_restart"], remind_after_seconds: 60, remind_times: 1 });
  await raise(first, "conv_restart", "el_restart");
  await first.scheduled(roundName("el_restart", "restart", 1));
  await stop(first);
  const second = await fresh({ table });
  expect(pending(second, "el_restart", "restart", 1)).toBe(true);
  await second.elapse(INTERVAL_MS);
  await expectReminders(second, hook, "restart", "el_restart", 1);
  await second.quietScan();
  expect(await eventsTo(second, "restart")).toEqual(["el_restart.reminder.1"]);
});
