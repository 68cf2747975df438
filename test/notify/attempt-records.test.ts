/**
 * What a target's item records of its attempts: every failure, and a success only when the target
 * was failing or its newest recorded attempt is older than the interval (configured to a minute
 * here, moved past with the stepped clock), so quick successful deliveries write the item once.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { startReceiver, type Receiver } from "../support/receiver.js";
import { eventually, startTollgate, type Harness } from "../support/tollgate.js";

const INTERVAL_MS = 60_000;
const RETRY_MS = 30_000;

let t: Harness;
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
  t = await startTollgate({ notifySuccessRecordMs: INTERVAL_MS, notifyRetryMs: [RETRY_MS], notifyTimeoutMs: 1_500 });
});
afterAll(async () => {
  await t?.stop();
  await receiver?.close();
});

async function raise(id: string) {
  const runner = await t.token("runner");
  const r = await t.http(runner, "POST", "/v1/sessions/conv_busy/events", { type: "response.elicitation_request", elicitation_id: id, params: { message: `${id}?` } });
  expect(r.status).toBe(201);
}

const recorded = async () => {
  const r = await t.http(await t.token("service"), "GET", "/v1/notification-targets/busy");
  return (r.body.last_attempts as { event_id: string; status?: number }[]).map((a) => `${a.event_id} ${a.status}`);
};
const targetItem = async () => (await t.scan()).find((i: any) => i.pk.S === "T#acme#TARGETS" && i.sk.S === "NT#busy") as Record<string, unknown>;

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
  // Its retry succeeds: recorded although within the interval, and the target is no longer failing.
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
