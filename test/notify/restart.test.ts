/**
 * A runtime restart in the middle of a delivery's retries neither loses nor doubles it: the next
 * attempt's schedule outlives the runtime, and the new runtime on the same table delivers it once,
 * with the same `webhook-id`, verified with the `standardwebhooks` library.
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

it("a delivery between two attempts when the runtime stops is delivered once after it starts again", { timeout: 120_000 }, async () => {
  const table = `tollgate-${randomUUID().slice(0, 8)}`;
  const options = { table, notifyRetryMs: [3_000, 200] };
  const first = await startTollgate(options);
  harnesses.push(first);
  receiver.plan("/restart", [500, 200]);
  const created = await first.http(await first.token("service"), "PUT", "/v1/notification-targets/restart", { kind: "webhook", url: receiver.url("/restart"), events: ["elicitation.requested"] });
  const hook = new Webhook(created.body.secret);
  const runner = await first.token("runner");
  await first.http(runner, "PUT", "/v1/sessions/conv_restart", {});
  expect((await first.http(runner, "POST", "/v1/sessions/conv_restart/events", { type: "response.elicitation_request", elicitation_id: "el_restart", params: { message: "restart?" } })).status).toBe(
    201,
  );
  await eventually(() => expect(receiver.at("/restart").map((r) => r.status)).toEqual([500]), 30_000);
  await first.stop();
  harnesses.pop();

  const second = await startTollgate(options);
  harnesses.push(second);
  await eventually(() => expect(receiver.at("/restart").map((r) => r.status)).toEqual([500, 200]), 60_000);
  await second.quietScan();
  const [failed, accepted] = receiver.at("/restart");
  expect(accepted.headers["webhook-id"]).toBe(failed.headers["webhook-id"]);
  expect((hook.verify(accepted.body, accepted.headers) as { data: { elicitation_id: string } }).data.elicitation_id).toBe("el_restart");
  expect(receiver.at("/restart")).toHaveLength(2);
});
