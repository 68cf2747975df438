/**
 * Deliveries across the upgrade that gave each delivery a partition of its own: a delivery written
 * at the key of before (under its target's partition) with a retry still scheduled is attempted and
 * finished once, at that key, with its own `webhook-id` and payload, every schedule fired twice; a
 * new delivery of the same target lands at its own key.
 */
import { GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, expect, it } from "vitest";
import { timerKeys } from "../../functions/domain/timers.js";
import { deliveriesEnded } from "../support/deliveries.js";
import { domainOver } from "../support/domain.js";
import { startReceiver, type Receiver } from "../support/receiver.js";
import { eventually, startTollgate, type Harness } from "../support/tollgate.js";

let t: Harness;
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
  t = await startTollgate({ redeliver: true, notifyRetryMs: [200, 200], notifyTimeoutMs: 1_500 });
});
afterAll(async () => {
  await t?.stop();
  await receiver?.close();
});

const item = (key: { pk: string; sk: string }) => t.runtime.clients.db.send(new GetCommand({ TableName: t.runtime.table, Key: key })).then((out) => out.Item);

it("a delivery at the old key, its first attempt failed before the upgrade, is retried and delivered once after it", { timeout: 60_000 }, async () => {
  const created = await t.http(await t.token("service"), "PUT", "/v1/notification-targets/legacy", { kind: "webhook", url: receiver.url("/legacy"), events: ["elicitation.requested"] });
  expect(created.status).toBe(201);
  const hook = new Webhook(created.body.secret);
  const eventId = "el_old.requested";
  const oldKey = { pk: "T#acme#NT#legacy", sk: `D#${eventId}` };
  const webhookId = `msg_${"0123456789abcdef".repeat(2)}`;
  const payload = JSON.stringify({ type: "elicitation.requested", timestamp: new Date(t.clock.now()).toISOString(), data: { elicitation_id: "el_old" } });
  // As the deploy before left it: attempt 1 claimed and ended (it failed), attempt 2 scheduled.
  const now = t.clock.now();
  const old = {
    ...oldKey,
    kind: "notification_delivery",
    tenant: "acme",
    target_id: "legacy",
    event_id: eventId,
    webhook_id: webhookId,
    payload_json: payload,
    created_at: new Date(now).toISOString(),
    attempt: 1,
    ended: 1,
    expires_at: Math.floor(now / 1000) + 86_400,
  };
  await t.runtime.clients.db.send(new PutCommand({ TableName: t.runtime.table, Item: old }));
  receiver.plan("/legacy", [500, 200]);
  const input = { tenant: "acme", target_id: "legacy", event_id: eventId, attempt: 2 };
  await domainOver(t).ctx.timers.schedule("notify", timerKeys.notify("acme", "legacy", eventId, 2), new Date(now + 1_000), input);

  await eventually(() => expect(receiver.at("/legacy").map((r) => r.status)).toEqual([500, 200]), 30_000);
  for (const r of receiver.at("/legacy")) {
    expect(r.headers["webhook-id"]).toBe(webhookId);
    expect(r.body).toBe(payload);
    expect(hook.verify(r.body, r.headers)).toMatchObject({ data: { elicitation_id: "el_old" } });
  }
  // The second firings look again once the claim's lease (1.5 s + 5 s) is over, and find the attempt ended
  // (once it has: the receiver holds the request before the attempt records it and ends).
  await deliveriesEnded(t, "legacy");
  await t.elapse(15_000);
  await eventually(() => expect(t.runtime.pendingSchedules().filter((name) => name.startsWith("notify-"))).toEqual([]), 20_000);
  await t.quietScan();
  expect(receiver.at("/legacy")).toHaveLength(2);
  expect(await item(oldKey)).toMatchObject({ attempt: 3, ended: 3, done: "delivered" });
  expect(await item({ pk: `T#acme#NT#legacy#D#${eventId}`, sk: "DELIVERY" })).toBeUndefined();

  // A delivery of now: its own partition, and the old key left alone.
  const runner = await t.token("runner");
  await t.http(runner, "PUT", "/v1/sessions/conv_new", {});
  const raised = await t.http(runner, "POST", "/v1/sessions/conv_new/events", { type: "response.elicitation_request", elicitation_id: "el_new", params: { message: "new?" } });
  expect(raised.status).toBe(201);
  await eventually(() => expect(receiver.at("/legacy")).toHaveLength(3), 20_000);
  await eventually(async () => expect(await item({ pk: "T#acme#NT#legacy#D#el_new.requested", sk: "DELIVERY" })).toMatchObject({ attempt: 1, ended: 1, done: "delivered" }));
  expect(await item({ pk: "T#acme#NT#legacy", sk: "D#el_new.requested" })).toBeUndefined();
  expect(await item(oldKey)).toMatchObject({ attempt: 3, ended: 3, done: "delivered" });
});
