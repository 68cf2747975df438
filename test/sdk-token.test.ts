/** The runner's token provider: a fresh token for every connection, and a clear end when tokens are refused. */
import { ApiGatewayManagementApiClient, DeleteConnectionCommand } from "@aws-sdk/client-apigatewaymanagementapi";
import { afterAll, beforeAll, expect, it } from "vitest";
import { steppedClock } from "../local/clock.js";
import { mintToken } from "../local/tokens.js";
import { TollgateRunner } from "../sdk/runner.js";
import { SECRET, startTollgate, type Harness } from "./support/tollgate.js";

/** The machine may be busy: allow views that follow a write some seconds. */
const POLL = { timeout: 15_000 };
let t: Harness;
let human: string;
const runners: TollgateRunner[] = [];
beforeAll(async () => {
  t = await startTollgate();
  human = await t.token("human");
});
afterAll(async () => {
  for (const r of runners) r.close();
  await t?.stop();
});

const runnerToken = (ttlSeconds?: number) => mintToken(SECRET, { sub: "runner-1", tenant: "acme", role: "runner" }, ttlSeconds);
const make = (token: ConstructorParameters<typeof TollgateRunner>[0]["token"], sessions = [{ session_id: "tok_s" }]) => {
  const runner = new TollgateRunner({ url: t.runtime.wsUrl, token, sessions, backoff: { initialMs: 20, maxMs: 200 } });
  runners.push(runner);
  return runner;
};
const status = async (id: string) => (await t.http(human, "GET", `/v1/elicitations/${id}`)).body;

it("asks the provider (sync or async) for a token at every connection, and a wait outlives the reconnect, raised once and answered once", async () => {
  const given: string[] = [];
  const runner = make(async () => {
    const token = await runnerToken();
    given.push(token);
    return token;
  });
  const wait = runner.elicit({ sessionId: "tok_s", elicitationId: "tok_cut", params: { message: "through a reconnect?" } });
  await expect.poll(async () => (await status("tok_cut"))?.status, POLL).toBe("pending");
  const first = runner.connectionId!;
  const connections = new ApiGatewayManagementApiClient({ endpoint: t.runtime.httpUrl, region: "us-east-1", credentials: { accessKeyId: "local", secretAccessKey: "local" } });
  await connections.send(new DeleteConnectionCommand({ ConnectionId: first }));
  connections.destroy();
  await expect.poll(() => runner.connectionId !== undefined && runner.connectionId !== first, POLL).toBe(true);
  expect(given.length).toBe(2);
  await t.http(human, "POST", "/v1/sessions/tok_s/events", { type: "approval", elicitation_id: "tok_cut", action: "accept" });
  await expect(wait).resolves.toMatchObject({ elicitation_id: "tok_cut", action: "accept", reason: "answered" });
  const session = (await t.http(human, "GET", "/v1/sessions/tok_s")).body;
  expect(session).toMatchObject({ pending_elicitations_count: 0, pending_elicitations: [] });

  const plain = make(() => "not-a-token");
  await expect(plain.connect()).rejects.toMatchObject({ code: "unauthorized" });
});

it("takes the provider's next token when one is refused at connect", async () => {
  let calls = 0;
  const runner = make(async () => (++calls === 1 ? runnerToken(-60) : runnerToken()), [{ session_id: "tok_retry" }]);
  await runner.connect();
  expect(calls).toBe(2);
  expect(runner.connectionId).toBeDefined();
});

it("gives up with unauthorized on a refused string token, and rejects the waits", async () => {
  const runner = make(await runnerToken(-60), [{ session_id: "tok_expired" }]);
  await expect(runner.connect()).rejects.toMatchObject({ name: "TollgateError", code: "unauthorized" });
  await expect(runner.elicit({ sessionId: "tok_expired", params: { message: "never?" } })).rejects.toMatchObject({ code: "unauthorized" });
  expect(runner.hasPending("tok_expired")).toBe(false);
});

it("gives up with token_provider_failed after the provider failed three times in a row", async () => {
  let calls = 0;
  const runner = make(() => {
    calls++;
    throw new Error("issuer unreachable");
  });
  await expect(runner.connect()).rejects.toMatchObject({ code: "token_provider_failed", message: expect.stringContaining("issuer unreachable") });
  expect(calls).toBe(3);
});

it("reconnects with a fresh token whenever Tollgate refuses a frame after the token's exp: the wait goes on, raised once and answered once", async () => {
  const clock = steppedClock();
  const stepped = await startTollgate({ clock });
  try {
    let calls = 0;
    // Tokens are minted on the wall clock, and the runtime's clock runs ahead of it: 1 minute, then 7, then 30 days.
    const token = () => runnerToken([60, 7 * 60][calls++]);
    const runner = await stepped.runner({ token, sessions: [{ session_id: "tok_exp" }] });
    const first = runner.connectionId;
    const steppedHuman = await stepped.token("human");
    const status = async () => (await stepped.http(steppedHuman, "GET", "/v1/elicitations/tok_exp_el")).body?.status;

    await clock.advance(5 * 60_000); // past the first token's exp, within the gateway's idle and age limits
    const wait = runner.elicit({ sessionId: "tok_exp", elicitationId: "tok_exp_el", params: { message: "after the token ran out?" } });
    await expect.poll(status, POLL).toBe("pending");
    expect(calls).toBe(2);
    const second = runner.connectionId;
    expect(second).not.toBe(first);

    await clock.advance(4 * 60_000); // past the second token's exp, 4 minutes after the last frame
    await runner.addSession({ session_id: "tok_exp_added" }); // refused, then sent again on the next connection
    expect(calls).toBe(3);
    expect(runner.connectionId).not.toBe(second);
    expect((await stepped.http(steppedHuman, "GET", "/v1/sessions/tok_exp_added")).status).toBe(200);

    await stepped.http(steppedHuman, "POST", "/v1/sessions/tok_exp/events", { type: "approval", elicitation_id: "tok_exp_el", action: "accept" });
    await expect(wait).resolves.toMatchObject({ elicitation_id: "tok_exp_el", action: "accept", reason: "answered" });
    const elicitations = (await stepped.scan()).filter((item) => (item.sk as { S: string }).S === "ELICITATION");
    expect(elicitations).toHaveLength(1);
  } finally {
    await stepped.stop();
  }
});
