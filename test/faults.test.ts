/**
 * When DynamoDB misbehaves as the real service can (a proxy in front of DynamoDB Local): failures
 * past the AWS SDK's retries, transactions cancelled by a concurrent one or by throttling, and batch
 * reads left unprocessed. The runtime is one per process (its handlers read their endpoints once),
 * hence a file of its own.
 */
import { ApiGatewayManagementApiClient, DeleteConnectionCommand } from "@aws-sdk/client-apigatewaymanagementapi";
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

it("a reconnect whose hello is refused by a server failure says hello again; the wait goes on and gets its verdict", async () => {
  const runner = await t.runner({ sessions: [{ session_id: "rehello" }] });
  const wait = runner.elicit({ sessionId: "rehello", elicitationId: "rehello_el", params: { message: "rehello?" } });
  let settled = false;
  wait.then(
    () => (settled = true),
    () => (settled = true),
  );
  const human = await t.token("human");
  await expect.poll(async () => (await t.http(human, "GET", "/v1/elicitations/rehello_el")).body.status).toBe("pending");
  const first = runner.connectionId;
  // $connect (a PutItem) still works; the hello's first write (an UpdateItem) fails past the SDK's retries: internal_error.
  dynamo.failOperation("UpdateItem");
  const before = dynamo.refused();
  const connections = new ApiGatewayManagementApiClient({ endpoint: t.runtime.httpUrl, region: "us-east-1", credentials: { accessKeyId: "local", secretAccessKey: "local" } });
  await connections.send(new DeleteConnectionCommand({ ConnectionId: first! }));
  connections.destroy();
  await expect.poll(() => dynamo.refused(), { timeout: 15_000 }).toBeGreaterThan(before + 6); // more than one hello's worth of tries
  await sleep(300);
  expect(settled).toBe(false);
  dynamo.heal();
  await expect.poll(() => runner.connectionId, { timeout: 15_000 }).not.toBe(first);
  await t.http(human, "POST", "/v1/sessions/rehello/events", { type: "approval", elicitation_id: "rehello_el", action: "accept" });
  await expect(wait).resolves.toMatchObject({ action: "accept", reason: "answered" });
});

const cancellations = [
  { why: "concurrent transactions", session: "conflicted", cancel: (n: number) => dynamo.conflictTransactions(n) },
  { why: "throttling (the table or an index at its capacity)", session: "throttled", cancel: (n: number) => dynamo.throttleTransactions(n) },
];

for (const { why, session, cancel } of cancellations) {
  it(`a raise and a verdict cancelled by ${why} are tried again: 201, 200, one verdict at the runner`, async () => {
    const runner = await t.runner({ sessions: [{ session_id: session }] });
    const before = dynamo.refused();
    cancel(2);
    const wait = runner.elicit({ sessionId: session, elicitationId: `${session}_el`, params: { message: `${session}?` } });
    const human = await t.token("human");
    await expect.poll(async () => (await t.http(human, "GET", `/v1/elicitations/${session}_el`)).body.status).toBe("pending");
    expect(dynamo.refused()).toBe(before + 2);
    cancel(3);
    const verdict = await t.http(human, "POST", `/v1/sessions/${session}/events`, { type: "approval", elicitation_id: `${session}_el`, action: "accept" });
    expect(verdict).toMatchObject({ status: 200, body: { status: "resolved", action: "accept" } });
    expect(dynamo.refused()).toBe(before + 5);
    await expect(wait).resolves.toMatchObject({ action: "accept", reason: "answered" });
    expect((await t.http(human, "GET", `/v1/sessions/${session}`)).body).toMatchObject({ pending_elicitations_count: 0 });
  });
}

/** A runner parked on `<session>_el` in a session of its own, and a human to look at it and answer. */
async function parked(session: string) {
  const runner = await t.runner({ sessions: [{ session_id: session }] });
  const wait = runner.elicit({ sessionId: session, elicitationId: `${session}_el`, params: { message: `${session}?` } });
  const human = await t.token("human");
  await expect.poll(async () => (await t.http(human, "GET", `/v1/elicitations/${session}_el`)).body.status).toBe("pending");
  return { wait, human };
}

it("a verdict throttled past its tries is internal_error and changes nothing; sent again, it lands", async () => {
  const { wait, human } = await parked("starved");
  const before = dynamo.refused();
  dynamo.throttleTransactions(1_000);
  const refused = await t.http(human, "POST", "/v1/sessions/starved/events", { type: "approval", elicitation_id: "starved_el", action: "accept" });
  dynamo.throttleTransactions(0);
  expect(refused).toMatchObject({ status: 500, body: { error: { code: "internal_error", message: "internal error" } } });
  // Tried a bounded number of times, then given up.
  expect(dynamo.refused() - before).toBeGreaterThan(1);
  expect(dynamo.refused() - before).toBeLessThan(10);
  expect((await t.http(human, "GET", "/v1/elicitations/starved_el")).body).toMatchObject({ status: "pending" });
  expect((await t.http(human, "GET", "/v1/sessions/starved")).body).toMatchObject({ pending_elicitations_count: 1 });
  const again = await t.http(human, "POST", "/v1/sessions/starved/events", { type: "approval", elicitation_id: "starved_el", action: "accept" });
  expect(again).toMatchObject({ status: 200, body: { status: "resolved", action: "accept" } });
  await expect(wait).resolves.toMatchObject({ action: "accept", reason: "answered" });
});

it("a batch read left unprocessed is asked again until it is read; left so for good, the call is internal_error", async () => {
  const { wait, human } = await parked("unprocessed");
  const before = dynamo.refused();
  dynamo.leaveBatchGetsUnprocessed(2);
  const snapshot = await t.http(human, "GET", "/v1/sessions/unprocessed");
  expect(snapshot).toMatchObject({ status: 200, body: { pending_elicitations_count: 1, pending_elicitations: [{ elicitation_id: "unprocessed_el" }] } });
  expect(dynamo.refused()).toBe(before + 2);
  dynamo.leaveBatchGetsUnprocessed(1_000);
  const starved = await t.http(human, "GET", "/v1/sessions/unprocessed");
  dynamo.leaveBatchGetsUnprocessed(0);
  expect(starved).toMatchObject({ status: 500, body: { error: { code: "internal_error", message: "internal error" } } });
  // Asked a bounded number of times, then given up.
  expect(dynamo.refused() - before - 2).toBeGreaterThan(1);
  expect(dynamo.refused() - before - 2).toBeLessThan(10);
  expect((await t.http(human, "GET", "/v1/sessions/unprocessed")).body).toMatchObject({ pending_elicitations: [{ elicitation_id: "unprocessed_el" }] });
  await t.http(human, "POST", "/v1/sessions/unprocessed/events", { type: "approval", elicitation_id: "unprocessed_el", action: "decline" });
  await expect(wait).resolves.toMatchObject({ action: "decline" });
});
