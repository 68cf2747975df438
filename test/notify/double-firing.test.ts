/**
 * Scheduler may fire a schedule twice (at least once): with every schedule fired twice and every
 * stream batch delivered twice, each attempt still runs once, so a receiver that fails once gets
 * exactly two requests (the failure and the retry), with one `webhook-id`, verified with
 * `standardwebhooks`.
 */
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, expect, it } from "vitest";
import { deliveriesEnded } from "../support/deliveries.js";
import { startReceiver, type Receiver } from "../support/receiver.js";
import { eventually, startTollgate, type Harness } from "../support/tollgate.js";

let t: Harness;
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
  t = await startTollgate({ redeliver: true, notifyRetryMs: [500, 500], notifyTimeoutMs: 3_000 });
});
afterAll(async () => {
  await t?.stop();
  await receiver?.close();
});

it("every schedule fired twice: each attempt runs once, one webhook-id, one accepted delivery", { timeout: 60_000 }, async () => {
  receiver.plan("/twice", [500, 200]);
  const created = await t.http(await t.token("service"), "PUT", "/v1/notification-targets/twice", { kind: "webhook", url: receiver.url("/twice"), events: ["elicitation.requested"] });
  const runner = await t.token("runner");
  await t.http(runner, "PUT", "/v1/sessions/conv_twice", {});
  expect((await t.http(runner, "POST", "/v1/sessions/conv_twice/events", { type: "response.elicitation_request", elicitation_id: "el_twice", params: { message: "twice?" } })).status).toBe(201);
  await eventually(() => expect(receiver.at("/twice").map((r) => r.status)).toEqual([500, 200]), 30_000);
  await deliveriesEnded(t, "twice");
  // The second firings find their attempt claimed and look again a second after its lease (8 s), or
  // a second after they ran when that is later: they find it ended, and no schedule is left.
  await t.elapse(15_000);
  await eventually(() => expect(t.runtime.pendingSchedules().filter((name) => name.startsWith("notify-"))).toEqual([]), 20_000);
  await t.quietScan();
  expect(receiver.at("/twice").map((r) => r.status)).toEqual([500, 200]);
  const hook = new Webhook(created.body.secret);
  expect(new Set(receiver.at("/twice").map((r) => r.headers["webhook-id"])).size).toBe(1);
  expect((hook.verify(receiver.at("/twice")[1].body, receiver.at("/twice")[1].headers) as { data: { elicitation_id: string } }).data.elicitation_id).toBe("el_twice");
});
