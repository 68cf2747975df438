/** A reason with any verdict: from the `approval` event to the parked runner, the reads, the subscribers and the SDK. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTollgate, type Harness } from "./support/tollgate.js";

let t: Harness;
let human: string;

beforeAll(async () => {
  t = await startTollgate();
  human = await t.token("human", "user_42");
});
afterAll(() => t?.stop());

const approval = (id: string, action: string, extra: Record<string, unknown> = {}) => ({ type: "approval", elicitation_id: id, action, ...extra });
const pendingRead = async (id: string) => (await t.http(human, "GET", `/v1/elicitations/${id}`)).body?.status;

describe("a message with the verdict", () => {
  it("a decline's message reaches the parked runner's frame, the SDK's verdict, the read and the subscribers", async () => {
    const inbox = await t.socket(await t.token("human", "watcher"));
    await inbox.request({ action: "subscribe", sessions: "*" });
    const socket = await t.socket(await t.token("runner"));
    await socket.request({ action: "hello", sessions: [{ session_id: "vm_raw" }] });
    expect((await socket.request({ action: "elicit", session_id: "vm_raw", elicitation_id: "vm_e1", params: { message: "Push on Friday?" } })).type).toBe("elicitation.parked");

    const answer = await t.http(human, "POST", "/v1/sessions/vm_raw/events", approval("vm_e1", "decline", { message: "not on Fridays" }));
    expect(answer).toEqual({
      status: 200,
      body: { elicitation_id: "vm_e1", action: "decline", message: "not on Fridays", reason: "answered", resolved_by: "user_42", resolved_at: expect.any(String), status: "resolved" },
    });
    const frame = await socket.next((f) => f.type === "elicitation.verdict" && f.elicitation_id === "vm_e1");
    expect(frame).toEqual({ type: "elicitation.verdict", elicitation_id: "vm_e1", session_id: "vm_raw", action: "decline", reason: "answered", message: "not on Fridays", resolved_by: "user_42" });

    const read = await t.http(human, "GET", "/v1/elicitations/vm_e1");
    expect(read.body.verdict).toEqual({ action: "decline", message: "not on Fridays", reason: "answered", resolved_by: "user_42", resolved_at: expect.any(String) });
    const pushed = await inbox.next((f) => f.type === "response.elicitation_resolved" && f.elicitation_id === "vm_e1");
    expect(pushed).toMatchObject({ action: "decline", reason: "answered", message: "not on Fridays", resolved_by: "user_42" });

    const runner = await t.runner({ sessions: [{ session_id: "vm_sdk" }] });
    const verdict = runner.elicit({ sessionId: "vm_sdk", elicitationId: "vm_e2", params: { message: "Drop the table?" } });
    await expect.poll(() => pendingRead("vm_e2"), { timeout: 20_000 }).toBe("pending");
    await t.http(human, "POST", "/v1/sessions/vm_sdk/events", approval("vm_e2", "decline", { message: "use a migration instead" }));
    await expect(verdict).resolves.toMatchObject({ action: "decline", reason: "answered", message: "use a migration instead" });
  });

  it("an accept carries its form's content and a message", async () => {
    const runner = await t.runner({ sessions: [{ session_id: "vm_form" }] });
    const schema = { type: "object", properties: { branch: { type: "string" } }, required: ["branch"] };
    const verdict = runner.elicit({ sessionId: "vm_form", elicitationId: "vm_f1", params: { message: "Which branch?", requestedSchema: schema as never } });
    await expect.poll(() => pendingRead("vm_f1"), { timeout: 20_000 }).toBe("pending");
    const given = approval("vm_f1", "accept", { content: { branch: "release" }, message: "release only, please" });
    expect((await t.http(human, "POST", "/v1/sessions/vm_form/events", given)).status).toBe(200);
    await expect(verdict).resolves.toMatchObject({ action: "accept", content: { branch: "release" }, message: "release only, please", reason: "answered" });
    const read = await t.http(human, "GET", "/v1/elicitations/vm_f1");
    expect(read.body.verdict).toMatchObject({ action: "accept", content: { branch: "release" }, message: "release only, please" });
  });

  it("an over-long, empty or non-string message is bad_request and changes nothing", async () => {
    const runner = await t.token("runner");
    await t.http(runner, "PUT", "/v1/sessions/vm_bad", {});
    await t.http(runner, "POST", "/v1/sessions/vm_bad/events", { type: "response.elicitation_request", elicitation_id: "vm_b1", params: { message: "Ok?" } });
    const before = await t.quietScan();
    for (const message of ["x".repeat(2_001), "", 42, ["no"], { text: "no" }, null]) {
      const reply = await t.http(human, "POST", "/v1/sessions/vm_bad/events", approval("vm_b1", "decline", { message }));
      expect(reply.status, JSON.stringify(message)).toBe(400);
      expect(reply.body.error.code).toBe("bad_request");
    }
    expect(await t.quietScan()).toEqual(before);
    expect(await pendingRead("vm_b1")).toBe("pending");
    // The longest message there may be is taken whole.
    const longest = "y".repeat(2_000);
    expect((await t.http(human, "POST", "/v1/sessions/vm_bad/events", approval("vm_b1", "decline", { message: longest }))).status).toBe(200);
    expect((await t.http(human, "GET", "/v1/elicitations/vm_b1")).body.verdict.message).toBe(longest);
  });

  it("the same verdict again is 200; another message is 409 with the standing verdict", async () => {
    const runner = await t.token("runner");
    await t.http(runner, "PUT", "/v1/sessions/vm_again", {});
    await t.http(runner, "POST", "/v1/sessions/vm_again/events", { type: "response.elicitation_request", elicitation_id: "vm_a1", params: { message: "Ok?" } });
    const first = approval("vm_a1", "decline", { message: "not yet" });
    expect((await t.http(human, "POST", "/v1/sessions/vm_again/events", first)).status).toBe(200);
    expect(await t.http(await t.token("human", "user_43"), "POST", "/v1/sessions/vm_again/events", first)).toEqual({
      status: 200,
      body: { elicitation_id: "vm_a1", action: "decline", message: "not yet", reason: "answered", resolved_by: "user_42", resolved_at: expect.any(String), status: "resolved" },
    });
    for (const other of [approval("vm_a1", "decline", { message: "never" }), approval("vm_a1", "decline"), approval("vm_a1", "accept", { message: "not yet" })]) {
      const reply = await t.http(human, "POST", "/v1/sessions/vm_again/events", other);
      expect(reply.status, JSON.stringify(other)).toBe(409);
      expect(reply.body.error).toMatchObject({
        code: "conflict",
        verdict: { action: "decline", message: "not yet", reason: "answered", resolved_by: "user_42" },
      });
    }
    // A verdict given without a message stands without one: giving it a message later is another verdict.
    await t.http(runner, "POST", "/v1/sessions/vm_again/events", { type: "response.elicitation_request", elicitation_id: "vm_a2", params: { message: "Ok?" } });
    expect((await t.http(human, "POST", "/v1/sessions/vm_again/events", approval("vm_a2", "accept"))).status).toBe(200);
    const late = await t.http(human, "POST", "/v1/sessions/vm_again/events", approval("vm_a2", "accept", { message: "fine" }));
    expect(late.status).toBe(409);
    expect(late.body.error.verdict).not.toHaveProperty("message");
  });
});
