/**
 * Per-token rate limits on raises and verdicts (`rate_limited`, 429), configurable.
 * Counted per tenant + sub + operation in a one-minute window; a refusal writes nothing, and a
 * request refused for any other reason does not use up the budget.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultRateLimits, readConfig } from "../../functions/shared/config.js";
import { env } from "../../functions/shared/env.js";
import { sleep, startTollgate, type Harness } from "../support/tollgate.js";

const RAISES = 3;
const VERDICTS = 2;
let t: Harness;

beforeAll(async () => {
  t = await startTollgate({ rateLimits: { raisesPerMinute: RAISES, verdictsPerMinute: VERDICTS } });
});
afterAll(() => t?.stop());

/** Each test runs inside one window: start it with at least 15 s of the minute left. */
async function freshWindow() {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 15_000) await sleep(left + 50);
}

const raiseBody = (id: string) => ({ type: "response.elicitation_request", elicitation_id: id, params: { message: `May I ${id}?` } });

async function sessionFor(token: string, id: string) {
  expect((await t.http(token, "PUT", `/v1/sessions/${id}`, {})).status).toBe(200);
}

describe("raises", () => {
  it(`a token may raise ${RAISES} per minute; the next is 429 over HTTP and WebSocket, and writes nothing`, async () => {
    await freshWindow();
    const runner = await t.token("runner", "busy-agent");
    await sessionFor(runner, "conv_rl");
    const socket = await t.socket(runner);
    for (let i = 0; i < RAISES - 1; i++) expect((await t.http(runner, "POST", "/v1/sessions/conv_rl/events", raiseBody(`el_rl_${i}`))).status).toBe(201);
    expect((await socket.request({ action: "elicit", session_id: "conv_rl", elicitation_id: "el_rl_ws", params: { message: "ws?" } })).type).toBe("elicitation.parked");

    const before = await t.quietScan();
    const refused = await fetch(`${t.runtime.httpUrl}/v1/sessions/conv_rl/events`, {
      method: "POST",
      headers: { authorization: `Bearer ${runner}`, "content-type": "application/json" },
      body: JSON.stringify(raiseBody("el_rl_over")),
    });
    expect(refused.status).toBe(429);
    const body = await refused.json();
    expect(body.error).toMatchObject({ code: "rate_limited" });
    expect(body.error.retry_after_seconds).toBeGreaterThanOrEqual(1);
    expect(body.error.retry_after_seconds).toBeLessThanOrEqual(60);
    expect(Number(refused.headers.get("retry-after"))).toBe(body.error.retry_after_seconds);
    const frame = await socket.request({ action: "elicit", session_id: "conv_rl", elicitation_id: "el_rl_over_ws", params: { message: "ws?" } });
    expect(frame).toMatchObject({ type: "error", code: "rate_limited" });
    expect(await t.quietScan()).toEqual(before);
    expect((await t.http(await t.token("human"), "GET", "/v1/elicitations/el_rl_over")).status).toBe(404);
  });

  it("counts per token: another sub, or the same sub in another tenant, has its own budget", async () => {
    await freshWindow();
    const first = await t.token("runner", "agent-x", "acme");
    const other = await t.token("runner", "agent-y", "acme");
    const elsewhere = await t.token("runner", "agent-x", "globex");
    for (const [token, session] of [
      [first, "conv_x"],
      [other, "conv_y"],
      [elsewhere, "conv_x"],
    ] as const)
      await sessionFor(token, session);
    for (let i = 0; i < RAISES; i++) expect((await t.http(first, "POST", "/v1/sessions/conv_x/events", raiseBody(`el_x_${i}`))).status).toBe(201);
    expect((await t.http(first, "POST", "/v1/sessions/conv_x/events", raiseBody("el_x_over"))).status).toBe(429);
    expect((await t.http(other, "POST", "/v1/sessions/conv_y/events", raiseBody("el_y_0"))).status).toBe(201);
    expect((await t.http(elsewhere, "POST", "/v1/sessions/conv_x/events", raiseBody("el_gx_0"))).status).toBe(201);
    // The counters live under each tenant's own keys, and expire.
    const counters = (await t.scan()).filter((i: any) => i.pk.S.includes("#RATE#"));
    expect(counters.map((i: any) => i.pk.S).sort()).toEqual(expect.arrayContaining(["T#acme#RATE#raise#agent-x", "T#acme#RATE#raise#agent-y", "T#globex#RATE#raise#agent-x"]));
    for (const c of counters as any[]) expect(Number(c.expires_at.N)).toBeGreaterThan(Date.now() / 1000);
  });

  it("a request refused for another reason (malformed, unknown session, forbidden) uses up nothing", async () => {
    await freshWindow();
    const runner = await t.token("runner", "careful-agent");
    const thief = await t.token("runner", "thief");
    await sessionFor(runner, "conv_careful");
    for (let i = 0; i < 5; i++) {
      expect((await t.http(runner, "POST", "/v1/sessions/conv_careful/events", { ...raiseBody(`el_bad_${i}`), timeout_seconds: 0 })).status).toBe(400);
      expect((await t.http(runner, "POST", "/v1/sessions/conv_nowhere/events", raiseBody(`el_nf_${i}`))).status).toBe(404);
      expect((await t.http(thief, "POST", "/v1/sessions/conv_careful/events", raiseBody(`el_th_${i}`))).status).toBe(403);
    }
    for (let i = 0; i < RAISES; i++) expect((await t.http(runner, "POST", "/v1/sessions/conv_careful/events", raiseBody(`el_ok_${i}`))).status).toBe(201);
    expect((await t.http(runner, "POST", "/v1/sessions/conv_careful/events", raiseBody("el_over"))).status).toBe(429);
    // The thief's refusals were not counted either: it can still raise in its own session.
    await sessionFor(thief, "conv_thief");
    expect((await t.http(thief, "POST", "/v1/sessions/conv_thief/events", raiseBody("el_th_own"))).status).toBe(201);
  });
});

describe("verdicts", () => {
  it(`a token may give ${VERDICTS} verdicts per minute; the next is 429 and leaves the elicitation pending`, async () => {
    await freshWindow();
    const runner = await t.token("runner", "asker");
    const human = await t.token("human", "fast-clicker");
    const colleague = await t.token("human", "colleague");
    await sessionFor(runner, "conv_v");
    for (let i = 0; i <= VERDICTS; i++) expect((await t.http(runner, "POST", "/v1/sessions/conv_v/events", raiseBody(`el_v_${i}`))).status).toBe(201);
    for (let i = 0; i < VERDICTS; i++) {
      expect((await t.http(human, "POST", "/v1/sessions/conv_v/events", { type: "approval", elicitation_id: `el_v_${i}`, action: "accept" })).status).toBe(200);
    }
    const before = await t.quietScan();
    const over = await t.http(human, "POST", "/v1/sessions/conv_v/events", { type: "approval", elicitation_id: `el_v_${VERDICTS}`, action: "accept" });
    expect(over).toMatchObject({ status: 429, body: { error: { code: "rate_limited" } } });
    expect(await t.quietScan()).toEqual(before);
    expect((await t.http(colleague, "GET", `/v1/elicitations/el_v_${VERDICTS}`)).body.status).toBe("pending");
    // Another human is not slowed down by the first one's clicks.
    expect((await t.http(colleague, "POST", "/v1/sessions/conv_v/events", { type: "approval", elicitation_id: `el_v_${VERDICTS}`, action: "decline" })).status).toBe(200);
  });
});

describe("what counts", () => {
  it("a re-publish, and a verdict on an elicitation already resolved, count nothing: the count is part of the write that changes something", async () => {
    await freshWindow();
    const runner = await t.token("runner", "repeater");
    const human = await t.token("human", "late-clicker");
    const colleague = await t.token("human", "quick-colleague");
    await sessionFor(runner, "conv_repeat");
    expect((await t.http(runner, "POST", "/v1/sessions/conv_repeat/events", raiseBody("el_rep"))).status).toBe(201);
    // The same raise again, more often than the limit allows raises: each is a re-publish.
    for (let i = 0; i < RAISES + 2; i++) expect((await t.http(runner, "POST", "/v1/sessions/conv_repeat/events", raiseBody("el_rep"))).status).toBe(200);
    for (let i = 1; i < RAISES; i++) expect((await t.http(runner, "POST", "/v1/sessions/conv_repeat/events", raiseBody(`el_rep_${i}`))).status).toBe(201);
    expect((await t.http(runner, "POST", "/v1/sessions/conv_repeat/events", raiseBody("el_rep_over"))).status).toBe(429);

    expect((await t.http(colleague, "POST", "/v1/sessions/conv_repeat/events", { type: "approval", elicitation_id: "el_rep", action: "accept" })).status).toBe(200);
    // Late clicks on what the colleague already answered: the same verdict is 200, another is 409; neither counts.
    for (let i = 0; i < VERDICTS + 2; i++) {
      expect((await t.http(human, "POST", "/v1/sessions/conv_repeat/events", { type: "approval", elicitation_id: "el_rep", action: "accept" })).status).toBe(200);
      expect((await t.http(human, "POST", "/v1/sessions/conv_repeat/events", { type: "approval", elicitation_id: "el_rep", action: "decline" })).status).toBe(409);
    }
    for (let i = 1; i <= VERDICTS; i++) {
      expect((await t.http(human, "POST", "/v1/sessions/conv_repeat/events", { type: "approval", elicitation_id: `el_rep_${i}`, action: "accept" })).status).toBe(200);
    }
  });
});

describe("configuration", () => {
  it("reads the limits from the environment: generous defaults, 0 turns a limit off", () => {
    expect(readConfig({}).rateLimits).toEqual(defaultRateLimits);
    expect(defaultRateLimits.raisesPerMinute).toBeGreaterThanOrEqual(600);
    expect(readConfig({ [env.rateLimitRaisesPerMinute]: "0", [env.rateLimitVerdictsPerMinute]: "30" }).rateLimits).toEqual({ raisesPerMinute: 0, verdictsPerMinute: 30 });
    expect(() => readConfig({ [env.rateLimitVerdictsPerMinute]: "lots" })).toThrow(env.rateLimitVerdictsPerMinute);
  });
});
