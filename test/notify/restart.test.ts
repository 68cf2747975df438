/**
 * A runtime restart in the middle of a delivery's retries neither loses nor doubles it: the next
 * attempt's schedule outlives the runtime, and the new runtime on the same table delivers it once,
 * with the same `webhook-id`, verified with the `standardwebhooks` library. A runtime that stops in
 * the middle of an attempt leaves that attempt claimed: the next runtime takes it over once the
 * claim's lease (the configured 3 s timeout plus 5 s) is over.
 */
import { randomUUID } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { afterAll, expect, it } from "vitest";
import { startReceiver } from "../support/receiver.js";
import { eventually, startTollgate, type Harness } from "../support/tollgate.js";

const harnesses: Harness[] = [];
const receiver = await startReceiver();
afterAll(async () => {
  for (const h of harnesses) await h.stop().catch(() => undefined);
  await receiver.close();
});

/** A runtime with a webhook target at `path` and one elicitation raised: the target's verifier. */
async function raised(options: { table: string; notifyRetryMs: number[]; notifyTimeoutMs: number }, path: string) {
  const first = await startTollgate(options);
  harnesses.push(first);
  const created = await first.http(await first.token("service"), "PUT", `/v1/notification-targets${path}`, { kind: "webhook", url: receiver.url(path), events: ["elicitation.requested"] });
  expect(created.status).toBe(201);
  const runner = await first.token("runner");
  await first.http(runner, "PUT", `/v1/sessions/conv${path.replace("/", "_")}`, {});
  const raise = { type: "response.elicitation_request", elicitation_id: `el${path.replace("/", "_")}`, params: { message: "restart?" } };
  expect((await first.http(runner, "POST", `/v1/sessions/conv${path.replace("/", "_")}/events`, raise)).status).toBe(201);
  return { first, hook: new Webhook(created.body.secret) };
}

async function restart(first: Harness, options: { table: string }) {
  await first.stop();
  harnesses.splice(harnesses.indexOf(first), 1);
  const second = await startTollgate(options);
  harnesses.push(second);
  return second;
}

it("a delivery between two attempts when the runtime stops is delivered once after it starts again", { timeout: 120_000 }, async () => {
  const options = { table: `tollgate-${randomUUID().slice(0, 8)}`, notifyRetryMs: [3_000, 200], notifyTimeoutMs: 3_000 };
  receiver.plan("/restart", [500, 200]);
  const { first, hook } = await raised(options, "/restart");
  await eventually(() => expect(receiver.at("/restart").map((r) => r.status)).toEqual([500]), 30_000);
  const second = await restart(first, options);
  await eventually(() => expect(receiver.at("/restart").map((r) => r.status)).toEqual([500, 200]), 60_000);
  await second.quietScan();
  const [failed, accepted] = receiver.at("/restart");
  expect(accepted.headers["webhook-id"]).toBe(failed.headers["webhook-id"]);
  expect((hook.verify(accepted.body, accepted.headers) as { data: { elicitation_id: string } }).data.elicitation_id).toBe("el_restart");
  expect(receiver.at("/restart")).toHaveLength(2);
});

it("an attempt cut off by a runtime stopping is taken over by the next runtime once its lease is over, and delivered once", { timeout: 120_000 }, async () => {
  const options = { table: `tollgate-${randomUUID().slice(0, 8)}`, notifyRetryMs: [1_000, 1_000, 1_000], notifyTimeoutMs: 3_000 };
  // The attempt the receiver hears of first is still waiting for its answer when the runtime stops
  // (an attempt before it may have failed to connect at all: the retries are a second apart).
  receiver.plan("/cutoff", ["hang", 200]);
  const { first, hook } = await raised(options, "/cutoff");
  await eventually(() => expect(receiver.at("/cutoff").map((r) => r.status)).toEqual(["hung"]), 30_000);
  const second = await restart(first, options);
  await eventually(() => expect(receiver.at("/cutoff").map((r) => r.status)).toEqual(["hung", 200]), 60_000);
  await second.quietScan();
  const [cut, accepted] = receiver.at("/cutoff");
  expect(accepted.headers["webhook-id"]).toBe(cut.headers["webhook-id"]);
  expect((hook.verify(accepted.body, accepted.headers) as { data: { elicitation_id: string } }).data.elicitation_id).toBe("el_cutoff");
  expect(receiver.at("/cutoff")).toHaveLength(2);
  const target = await second.http(await second.token("service"), "GET", "/v1/notification-targets/cutoff");
  expect(target.body.last_attempts.map((a: { status?: number }) => a.status)).toContain(200);
});
