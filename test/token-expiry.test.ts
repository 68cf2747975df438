/**
 * A connection does not outlive its token: a frame that arrives after the token's `exp` is refused
 * `unauthorized` and the connection is closed, whatever route it names; nothing it asked for happens.
 * The runtime's clock is moved past `exp` instead of waiting for it.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { mintToken } from "../local/tokens.js";
import { SECRET, startTollgate, type Harness } from "./support/tollgate.js";

let t: Harness;
beforeAll(async () => (t = await startTollgate()));
afterAll(() => t?.stop());

const shortLived = (sub: string) => mintToken(SECRET, { sub, tenant: "acme", role: "runner" }, 60, t.clock.now());

it("answers frames until exp, then refuses the next one unauthorized and closes", async () => {
  const socket = await t.socket(await shortLived("r-exp"));
  expect((await socket.request({ action: "hello", sessions: [{ session_id: "conv_exp" }] })).type).toBe("hello.ok");
  await t.clock.advance(55_000);
  expect((await socket.request({ action: "ping" })).type).toBe("pong");
  await t.clock.advance(6_000);
  const refused = await socket.request({ action: "elicit", session_id: "conv_exp", elicitation_id: "el_exp", params: { message: "still allowed?" } });
  expect(refused).toMatchObject({ type: "error", code: "unauthorized" });
  await socket.closed;
  const human = await t.token("human");
  expect((await t.http(human, "GET", "/v1/elicitations/el_exp")).status).toBe(404);
});

it("refuses every route the same way", async () => {
  for (const frame of [{ action: "ping" }, { action: "subscribe", sessions: "*" }, { action: "cancel", elicitation_id: "el_none" }, { action: "hello", sessions: [] }]) {
    const socket = await t.socket(await shortLived("r-any"));
    await t.clock.advance(61_000);
    expect(await socket.request(frame), frame.action).toMatchObject({ type: "error", code: "unauthorized" });
    await socket.closed;
  }
});

it("a fresh token connects again; the expired one is refused at $connect", async () => {
  const expired = await shortLived("r-again");
  await t.clock.advance(61_000);
  await expect(t.socket(expired)).rejects.toThrow("HTTP 401");
  const fresh = await t.socket(await shortLived("r-again"));
  expect((await fresh.request({ action: "ping" })).type).toBe("pong");
});
