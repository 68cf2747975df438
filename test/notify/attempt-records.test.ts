/**
 * What a target's item records of its attempts: a failure that starts a run of them and the success
 * that ends it, and otherwise one attempt an interval at most (configured to a minute here, moved
 * past with the stepped clock), decided from the item as it is once the receiver answered. So quick
 * deliveries, and quick failures, write the item once, and an attempt the receiver held does not
 * write again what another attempt recorded meanwhile.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { startReceiver, type Receiver } from "../support/receiver.js";
import { eventually, startTollgate, type Harness } from "../support/tollgate.js";

const INTERVAL_MS = 60_000;
/** Longer than the interval: a failure's retry is not due while the interval passes. */
const RETRY_MS = 300_000;

let t: Harness;
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
  // A held answer gets time enough for another attempt to run beside it.
  t = await startTollgate({ notifySuccessRecordMs: INTERVAL_MS, notifyRetryMs: [RETRY_MS], notifyTimeoutMs: 10_000 });
});
afterAll(async () => {
  await t?.stop();
  await receiver?.close();
});

/** A target hearing of one session's requests, and that session. */
async function target(id: string, session: string) {
  const created = await t.http(await t.token("service"), "PUT", `/v1/notification-targets/${id}`, {
    kind: "webhook",
    url: receiver.url(`/${id}`),
    events: ["elicitation.requested"],
    sessions: [session],
  });
  expect(created.status).toBe(201);
  await t.http(await t.token("runner"), "PUT", `/v1/sessions/${session}`, {});
}

async function raise(id: string, session = "conv_busy") {
  const runner = await t.token("runner");
  const r = await t.http(runner, "POST", `/v1/sessions/${session}/events`, { type: "response.elicitation_request", elicitation_id: id, params: { message: `${id}?` } });
  expect(r.status).toBe(201);
}

const recorded = async (targetId = "busy") => {
  const r = await t.http(await t.token("service"), "GET", `/v1/notification-targets/${targetId}`);
  return (r.body.last_attempts as { event_id: string; status?: number }[]).map((a) => `${a.event_id} ${a.status}`);
};
const item = async (pk: string, sk: string) => (await t.scan()).find((i: any) => i.pk.S === pk && i.sk.S === sk) as Record<string, any> | undefined;
const targetItem = async (targetId = "busy") => (await item("T#acme#TARGETS", `NT#${targetId}`))!;

it("quick successes leave one record; a failure is recorded and marks the target failing; the success after it is recorded and clears it", { timeout: 90_000 }, async () => {
  const created = await t.http(await t.token("service"), "PUT", "/v1/notification-targets/busy", { kind: "webhook", url: receiver.url("/busy"), events: ["elicitation.requested"] });
  expect(created.status).toBe(201);
  await t.http(await t.token("runner"), "PUT", "/v1/sessions/conv_busy", {});

  // The first success is recorded: there was nothing before it.
  await raise("el_1");
  await eventually(async () => expect(await recorded()).toEqual(["el_1.requested 200"]), 20_000);
  // Five more within the interval, all delivered: none recorded.
  for (let i = 2; i <= 6; i++) await raise(`el_${i}`);
  await eventually(() => expect(receiver.at("/busy")).toHaveLength(6), 20_000);
  await t.quietScan();
  expect(await recorded()).toEqual(["el_1.requested 200"]);

  // A failure is recorded at once and marks the target failing.
  receiver.plan("/busy", [500, 200]);
  await raise("el_7");
  await eventually(async () => expect(await recorded()).toEqual(["el_7.requested 500", "el_1.requested 200"]), 20_000);
  expect(await targetItem()).toHaveProperty("failing_since");
  // Its retry succeeds: recorded, and the target is no longer failing (within the interval too: see the failing receiver below).
  // (The pause has up to 20% of jitter, and a schedule's time is rounded up to the second.)
  await t.elapse(RETRY_MS * 1.2 + 2_000);
  await eventually(async () => expect(await recorded()).toEqual(["el_7.requested 200", "el_7.requested 500", "el_1.requested 200"]), 20_000);
  expect(await targetItem()).not.toHaveProperty("failing_since");

  // Within the interval again: delivered, not recorded; past it, the next success is recorded.
  await raise("el_8");
  await eventually(() => expect(receiver.at("/busy")).toHaveLength(9), 20_000);
  await t.quietScan();
  expect(await recorded()).toHaveLength(3);
  await t.elapse(INTERVAL_MS);
  await raise("el_9");
  await eventually(async () => expect(await recorded()).toEqual(["el_9.requested 200", "el_7.requested 200", "el_7.requested 500", "el_1.requested 200"]), 20_000);
  expect(receiver.at("/busy").map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200, 500, 200, 200, 200]);
});

it("a failing receiver: the failure that starts the run is recorded, those after it within the interval are not, the next one past it is", { timeout: 90_000 }, async () => {
  receiver.plan("/failing", [500]);
  await target("failing", "conv_failing");
  await raise("fl_1", "conv_failing");
  await eventually(async () => expect(await recorded("failing")).toEqual(["fl_1.requested 500"]), 20_000);
  const since = (await targetItem("failing")).failing_since;
  expect(since).toBeDefined();

  // Three more events, each failing its first attempt within the interval: none recorded.
  for (let i = 2; i <= 4; i++) await raise(`fl_${i}`, "conv_failing");
  await eventually(() => expect(receiver.at("/failing")).toHaveLength(4), 20_000);
  await t.quietScan();
  expect(await recorded("failing")).toEqual(["fl_1.requested 500"]);

  // Past the interval (no retry due yet), the next failure is recorded; the run still started at the first.
  await t.elapse(INTERVAL_MS);
  await raise("fl_5", "conv_failing");
  await eventually(async () => expect(await recorded("failing")).toEqual(["fl_5.requested 500", "fl_1.requested 500"]), 20_000);
  expect((await targetItem("failing")).failing_since).toEqual(since);

  // The success after them is recorded at once and ends the run.
  receiver.plan("/failing", [200]);
  await raise("fl_6", "conv_failing");
  await eventually(async () => expect(await recorded("failing")).toEqual(["fl_6.requested 200", "fl_5.requested 500", "fl_1.requested 500"]), 20_000);
  expect(await targetItem("failing")).not.toHaveProperty("failing_since");
  expect(receiver.at("/failing").map((r) => r.status)).toEqual([500, 500, 500, 500, 500, 200]);
});

it("an attempt decides once its receiver answered: what another attempt recorded meanwhile is not recorded again", { timeout: 90_000 }, async () => {
  await target("held", "conv_held");
  await raise("hd_1", "conv_held");
  await eventually(async () => expect(await recorded("held")).toEqual(["hd_1.requested 200"]), 20_000);
  await t.elapse(INTERVAL_MS);

  // hd_2's attempt reads the target (its record now old) and waits for its answer...
  receiver.plan("/held", ["hold", 200]);
  await raise("hd_2", "conv_held");
  await eventually(() => expect(receiver.at("/held").map((r) => r.status)).toEqual([200, "held"]), 20_000);
  // ...while hd_3's, answered at once, records its success.
  await raise("hd_3", "conv_held");
  await eventually(async () => expect(await recorded("held")).toEqual(["hd_3.requested 200", "hd_1.requested 200"]), 8_000);

  // Answered now, hd_2 finds hd_3's record within the interval: delivered, not recorded.
  receiver.release("/held");
  await eventually(async () => expect((await item("T#acme#NT#held#D#hd_2.requested", "DELIVERY"))?.done).toEqual({ S: "delivered" }), 20_000);
  expect(await recorded("held")).toEqual(["hd_3.requested 200", "hd_1.requested 200"]);
  expect(receiver.at("/held").map((r) => r.status)).toEqual([200, 200, 200]);
});
