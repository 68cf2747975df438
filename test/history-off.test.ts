/**
 * A deployment that keeps no history (TOLLGATE_HISTORY=off): every way an elicitation resolves leaves
 * it without a place in the history index, still readable for its retention, and `GET /v1/history`
 * answers `not_found` after the same token and role checks as ever.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readConfig } from "../functions/shared/config.js";
import { startTollgate, type Harness } from "./support/tollgate.js";

let t: Harness;
let human: string;
beforeAll(async () => {
  t = await startTollgate({ settings: { TOLLGATE_HISTORY: "off" } });
  human = await t.token("human");
});
afterAll(() => t?.stop());

it("is kept unless set off; another value is refused", () => {
  expect(readConfig({}).keepsHistory).toBe(true);
  expect(readConfig({ TOLLGATE_HISTORY: "on" }).keepsHistory).toBe(true);
  expect(readConfig({ TOLLGATE_HISTORY: "off" }).keepsHistory).toBe(false);
  expect(() => readConfig({ TOLLGATE_HISTORY: "false" })).toThrow(/TOLLGATE_HISTORY must be on or off/);
});

describe("history off", () => {
  const item = async (id: string) => (await t.scan()).find((i: any) => i.pk.S === `T#acme#E#${id}`) as any;

  it("a verdict, a runner's cancel and a verdict to a parked runner leave no history keys, and each stays readable", async () => {
    const runner = await t.token("runner");
    await t.http(runner, "PUT", "/v1/sessions/off", {});
    await t.http(runner, "POST", "/v1/sessions/off/events", { type: "response.elicitation_request", elicitation_id: "off_http", params: { message: "Answered?" } });
    expect((await t.http(human, "POST", "/v1/sessions/off/events", { type: "approval", elicitation_id: "off_http", action: "decline", message: "no" })).status).toBe(200);

    const socket = await t.socket(runner);
    await socket.request({ action: "hello", sessions: [{ session_id: "off" }] });
    for (const id of ["off_cancel", "off_bound"]) {
      expect((await socket.request({ action: "elicit", session_id: "off", elicitation_id: id, params: { message: `${id}?` } })).type).toBe("elicitation.parked");
    }
    expect(await socket.request({ action: "cancel", elicitation_id: "off_cancel" })).toMatchObject({ type: "elicitation.verdict", action: "cancel" });
    expect((await t.http(human, "POST", "/v1/sessions/off/events", { type: "approval", elicitation_id: "off_bound", action: "accept" })).status).toBe(200);
    expect(await socket.next((f) => f.type === "elicitation.verdict" && f.elicitation_id === "off_bound")).toMatchObject({ action: "accept" });

    for (const [id, action] of [
      ["off_http", "decline"],
      ["off_cancel", "cancel"],
      ["off_bound", "accept"],
    ]) {
      const stored = await item(id);
      expect(stored.status.S, id).toBe("resolved");
      expect(stored.expires_at, id).toBeDefined();
      expect(stored.history_pk, id).toBeUndefined();
      expect(stored.history_sk, id).toBeUndefined();
      expect((await t.http(human, "GET", `/v1/elicitations/${id}`)).body.verdict.action, id).toBe(action);
    }
  });

  it("GET /v1/history is not_found for a human, forbidden for a runner, unauthorized without a token", async () => {
    const reply = await t.http(human, "GET", "/v1/history");
    expect(reply.status).toBe(404);
    expect(reply.body.error).toEqual({ code: "not_found", message: "this deployment keeps no history" });
    expect((await t.http(human, "GET", "/v1/history?format=jsonl")).status).toBe(404);
    expect((await t.http(await t.token("runner"), "GET", "/v1/history")).status).toBe(403);
    expect((await t.http(undefined, "GET", "/v1/history")).status).toBe(401);
  });
});
