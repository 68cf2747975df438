/**
 * The runner client when the server fails: DynamoDB answers InternalServerError for a while (a
 * proxy in front of DynamoDB Local), so the runtime's handlers fail past the AWS SDK's retries.
 * The runtime is one per process (its handlers read their endpoints once), hence a file of its own.
 */
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { flakyDynamo } from "./support/flaky-dynamo.js";
import { sleep, startTollgate, type Harness } from "./support/tollgate.js";

let dynamo: Awaited<ReturnType<typeof flakyDynamo>>;
let t: Harness;
beforeAll(async () => {
  dynamo = await flakyDynamo(inject("dynamoEndpoint"));
  t = await startTollgate({ dynamoEndpoint: dynamo.endpoint });
});
afterAll(async () => {
  dynamo?.heal();
  await t?.stop();
  await dynamo?.close();
});

it("an aborted wait whose cancel is refused by a server failure sends it again until it lands", async () => {
  const runner = await t.runner({ sessions: [{ session_id: "sdk_flaky" }] });
  const abort = new AbortController();
  const wait = runner.elicit({ sessionId: "sdk_flaky", elicitationId: "sdk_flaky_el", params: { message: "flaky?" }, timeoutSeconds: 3600, signal: abort.signal });
  const stateOf = async () => (await t.http(await t.token("human"), "GET", "/v1/elicitations/sdk_flaky_el")).body;
  await expect.poll(async () => (await stateOf())?.status).toBe("pending");
  dynamo.fail();
  abort.abort();
  // Long enough for the cancel's handler to exhaust the AWS SDK's retries and answer internal_error.
  await sleep(2_000);
  expect(dynamo.refused()).toBeGreaterThanOrEqual(3);
  dynamo.heal();
  await expect(wait).rejects.toMatchObject({ name: "AbortError" });
  expect(await stateOf()).toMatchObject({ status: "resolved", verdict: { action: "cancel", reason: "cancelled" } });
});
