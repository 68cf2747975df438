/** The runner client: abort = cancel, hasPending, reconnect with resume. */
import { ApiGatewayManagementApiClient, DeleteConnectionCommand } from "@aws-sdk/client-apigatewaymanagementapi";
import { afterAll, beforeAll, expect, it } from "vitest";
import { TollgateError, TollgateRunner } from "../sdk/runner.js";
import { startTollgate, type Harness } from "./support/tollgate.js";

let t: Harness;
let human: string;
beforeAll(async () => {
  t = await startTollgate();
  human = await t.token("human");
});
afterAll(() => t?.stop());

const pendingOf = async (id: string) => (await t.http(human, "GET", `/v1/elicitations/${id}`)).body;

it("abort cancels the elicitation for everyone and rejects the wait with an AbortError", async () => {
  const runner = await t.runner({ sessions: [{ session_id: "sdk_abort" }] });
  const abort = new AbortController();
  const wait = runner.waitForUserApproval({ sessionId: "sdk_abort", elicitationId: "sdk_abort_el", params: { message: "abort me?" }, signal: abort.signal });
  await expect.poll(async () => (await pendingOf("sdk_abort_el"))?.status).toBe("pending");
  expect(runner.hasPending("sdk_abort")).toBe(true);
  abort.abort();
  await expect(wait).rejects.toMatchObject({ name: "AbortError" });
  expect(runner.hasPending("sdk_abort")).toBe(false);
  await expect.poll(async () => (await pendingOf("sdk_abort_el")).verdict).toMatchObject({ action: "cancel", reason: "cancelled", resolved_by: "runner-1" });
});

it("an abort before the elicitation is even parked still cancels it", async () => {
  const runner = await t.runner({ sessions: [{ session_id: "sdk_early" }] });
  const abort = new AbortController();
  const wait = runner.elicit({ sessionId: "sdk_early", elicitationId: "sdk_early_el", params: { message: "early?" }, signal: abort.signal });
  abort.abort();
  await expect(wait).rejects.toMatchObject({ name: "AbortError" });
  await expect.poll(async () => (await pendingOf("sdk_early_el"))?.verdict?.action).toBe("cancel");
});

it("reconnects after its connection is cut and receives the verdict given meanwhile, once", async () => {
  const runner = await t.runner({ sessions: [{ session_id: "sdk_cut" }] });
  const wait = runner.elicit({ sessionId: "sdk_cut", elicitationId: "sdk_cut_el", params: { message: "cut?" } });
  await expect.poll(async () => (await pendingOf("sdk_cut_el"))?.status).toBe("pending");
  const first = runner.connectionId!;
  const connections = new ApiGatewayManagementApiClient({ endpoint: t.runtime.httpUrl, region: "us-east-1", credentials: { accessKeyId: "local", secretAccessKey: "local" } });
  await connections.send(new DeleteConnectionCommand({ ConnectionId: first }));
  connections.destroy();
  await t.http(human, "POST", "/v1/sessions/sdk_cut/events", { type: "approval", elicitation_id: "sdk_cut_el", action: "accept", content: {} });
  await expect(wait).resolves.toMatchObject({ action: "accept", reason: "answered", elicitation_id: "sdk_cut_el" });
  await expect.poll(() => runner.connectionId).not.toBe(first);
  expect(runner.connectionId).toBeDefined();
});

it("onParked says when the wait is stored, with its deadline, and again when a reconnect parks it again", async () => {
  const runner = await t.runner({ sessions: [{ session_id: "sdk_parked" }] });
  const parked: { elicitationId: string; deadline: string }[] = [];
  const wait = runner.elicit({ sessionId: "sdk_parked", elicitationId: "sdk_parked_el", params: { message: "parked?" }, timeoutSeconds: 600, onParked: (p) => parked.push(p) });
  await expect.poll(() => parked.length).toBe(1);
  const stored = await pendingOf("sdk_parked_el");
  expect(stored.status).toBe("pending");
  expect(parked[0]).toEqual({ elicitationId: "sdk_parked_el", deadline: stored.event.deadline });
  expect(Date.parse(stored.event.deadline) - Date.parse(stored.event.created_at)).toBe(600_000);
  const connections = new ApiGatewayManagementApiClient({ endpoint: t.runtime.httpUrl, region: "us-east-1", credentials: { accessKeyId: "local", secretAccessKey: "local" } });
  await connections.send(new DeleteConnectionCommand({ ConnectionId: runner.connectionId! }));
  connections.destroy();
  await expect.poll(() => parked.length).toBe(2);
  expect(parked[1]).toEqual(parked[0]);
  await t.http(human, "POST", "/v1/sessions/sdk_parked/events", { type: "approval", elicitation_id: "sdk_parked_el", action: "decline" });
  await expect(wait).resolves.toMatchObject({ action: "decline" });
  expect(parked).toHaveLength(2);
});

it("the first elicit connects too, and parks once: onParked is called once", async () => {
  const runner = new TollgateRunner({ url: t.runtime.wsUrl, token: await t.token("runner"), sessions: [{ session_id: "sdk_first" }] });
  try {
    const parked: string[] = [];
    const wait = runner.elicit({ sessionId: "sdk_first", elicitationId: "sdk_first_el", params: { message: "first?" }, onParked: (p) => parked.push(p.deadline) });
    await expect.poll(() => parked.length).toBe(1);
    await t.http(human, "POST", "/v1/sessions/sdk_first/events", { type: "approval", elicitation_id: "sdk_first_el", action: "accept" });
    await expect(wait).resolves.toMatchObject({ action: "accept" });
    expect(parked).toHaveLength(1);
  } finally {
    runner.close();
  }
});

it("a session addSession could not register is not said again at a reconnect: the waits go on", async () => {
  const runner = await t.runner({ sessions: [{ session_id: "sdk_add" }] });
  const wait = runner.elicit({ sessionId: "sdk_add", elicitationId: "sdk_add_el", params: { message: "add?" } });
  await expect.poll(async () => (await pendingOf("sdk_add_el"))?.status).toBe("pending");
  await expect(runner.addSession({ session_id: "sdk_add_child", parent_session_id: "sdk_no_such_parent" })).rejects.toMatchObject({ code: "not_found" });
  const first = runner.connectionId!;
  const connections = new ApiGatewayManagementApiClient({ endpoint: t.runtime.httpUrl, region: "us-east-1", credentials: { accessKeyId: "local", secretAccessKey: "local" } });
  await connections.send(new DeleteConnectionCommand({ ConnectionId: first }));
  connections.destroy();
  await expect.poll(() => runner.connectionId).not.toBe(first);
  await t.http(human, "POST", "/v1/sessions/sdk_add/events", { type: "approval", elicitation_id: "sdk_add_el", action: "accept" });
  await expect(wait).resolves.toMatchObject({ action: "accept", reason: "answered" });
});

it("a connection whose hello was refused is not kept: the next call says hello again and is refused the same", async () => {
  const refused = new TollgateRunner({ url: t.runtime.wsUrl, token: await t.token("runner"), sessions: [{ session_id: "sdk_titled", title: "t".repeat(300) }] });
  try {
    await expect(refused.connect()).rejects.toMatchObject({ code: "bad_request" });
    expect(refused.connectionId).toBeUndefined();
    await expect(refused.elicit({ sessionId: "sdk_titled", params: { message: "titled?" } })).rejects.toMatchObject({ code: "bad_request" });
  } finally {
    refused.close();
  }
});

it("refuses what Tollgate refuses, with its code", async () => {
  const runner = await t.runner({ sessions: [{ session_id: "sdk_bad" }] });
  const refused = runner.elicit({ sessionId: "sdk_unknown_session", params: { message: "where?" } });
  await expect(refused).rejects.toBeInstanceOf(TollgateError);
  await expect(refused).rejects.toMatchObject({ code: "not_found" });
});

it("a second wait on an id this runner already waits on is refused with conflict; the first still gets its verdict", async () => {
  const runner = await t.runner({ sessions: [{ session_id: "sdk_twice" }] });
  const first = runner.elicit({ sessionId: "sdk_twice", elicitationId: "sdk_twice_el", params: { message: "twice?" } });
  const second = runner.elicit({ sessionId: "sdk_twice", elicitationId: "sdk_twice_el", params: { message: "twice?" } });
  await expect(second).rejects.toMatchObject({ code: "conflict" });
  await expect.poll(async () => (await pendingOf("sdk_twice_el"))?.status).toBe("pending");
  await t.http(human, "POST", "/v1/sessions/sdk_twice/events", { type: "approval", elicitation_id: "sdk_twice_el", action: "accept" });
  await expect(first).resolves.toMatchObject({ action: "accept", reason: "answered" });
  // Once it has ended, the id may be waited on again on the same connection (a retry of one's own): the standing verdict at once.
  await expect(runner.elicit({ sessionId: "sdk_twice", elicitationId: "sdk_twice_el", params: { message: "twice?" } })).resolves.toMatchObject({ action: "accept" });
});
