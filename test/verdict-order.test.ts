/**
 * API Gateway does not order a route's reply and a push to the same connection: a verdict given at
 * once may reach the runner before its `elicitation.parked`. The gateway holds the `elicit` reply
 * back until the verdict has arrived; the wait still resolves, once, with that verdict.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { eventually, sleep, startTollgate, type Harness } from "./support/tollgate.js";

let t: Harness;
beforeAll(async () => (t = await startTollgate()));
afterAll(() => t?.stop());

it("a verdict pushed before the parked reply resolves the wait once", async () => {
  const human = await t.token("human");
  const verdicts: string[] = [];
  const runner = await t.runner({ sessions: [{ session_id: "conv_order" }] });
  const release = t.runtime.holdReplies("elicit");
  let settled = 0;
  const waiting = runner.elicit({ sessionId: "conv_order", elicitationId: "el_order", params: { message: "Before or after?" } }).then((verdict) => {
    settled++;
    verdicts.push(verdict.action);
    return verdict;
  });
  await eventually(async () => expect((await t.http(human, "GET", "/v1/elicitations/el_order")).body?.status).toBe("pending"));
  expect((await t.http(human, "POST", "/v1/sessions/conv_order/events", { type: "approval", elicitation_id: "el_order", action: "accept" })).status).toBe(200);
  await sleep(300); // the verdict's push arrives while the parked reply is still held
  expect(settled).toBe(0); // not parked yet: the runner waits for its reply
  release();
  expect(await waiting).toMatchObject({ elicitation_id: "el_order", action: "accept", reason: "answered" });
  await sleep(300);
  expect(settled).toBe(1);
  expect(verdicts).toEqual(["accept"]);
  expect(runner.hasPending("conv_order")).toBe(false);
});

it("the held reply does arrive after the verdict (the reordering the test above relies on)", async () => {
  const human = await t.token("human");
  const socket = await t.socket(await t.token("runner"));
  await socket.request({ action: "hello", sessions: [{ session_id: "conv_order_raw" }] });
  const release = t.runtime.holdReplies("elicit");
  socket.send({ action: "elicit", session_id: "conv_order_raw", elicitation_id: "el_order_raw", params: { message: "raw?" }, ref: "e" });
  await eventually(async () => expect((await t.http(human, "GET", "/v1/elicitations/el_order_raw")).body?.status).toBe("pending"));
  await t.http(human, "POST", "/v1/sessions/conv_order_raw/events", { type: "approval", elicitation_id: "el_order_raw", action: "accept" });
  const verdict = await socket.next((f) => f.type === "elicitation.verdict");
  release();
  const parked = await socket.next((f) => f.ref === "e");
  expect(parked.type).toBe("elicitation.parked");
  expect(socket.frames.indexOf(verdict)).toBeLessThan(socket.frames.indexOf(parked));
});
