/** The elicitation round trip through the real handlers, DynamoDB Local and WebSockets. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTollgate, type Harness } from "./support/tollgate.js";

let t: Harness;
let human: string;
let runnerToken: string;

beforeAll(async () => {
  t = await startTollgate();
  human = await t.token("human", "user_42");
  runnerToken = await t.token("runner");
});
afterAll(() => t?.stop());

const ask = (message = "Approve running 'git push'?") => ({ message });

describe("round trip", () => {
  it("parks a runner until a human accepts, and records who answered", async () => {
    const runner = await t.runner({ sessions: [{ session_id: "conv_a" }] });
    const approved = runner.waitForUserApproval({ sessionId: "conv_a", elicitationId: "elicit_a1", params: ask() });
    await expect.poll(async () => (await t.http(human, "GET", "/v1/elicitations/elicit_a1")).body?.status).toBe("pending");
    expect(runner.hasPending("conv_a")).toBe(true);

    const answer = await t.http(human, "POST", "/v1/sessions/conv_a/events", { type: "approval", elicitation_id: "elicit_a1", action: "accept" });
    expect(answer).toEqual({ status: 200, body: { elicitation_id: "elicit_a1", action: "accept", reason: "answered", resolved_by: "user_42", resolved_at: expect.any(String), status: "resolved" } });
    await expect(approved).resolves.toBe(true);
    expect(runner.hasPending("conv_a")).toBe(false);

    const read = await t.http(human, "GET", "/v1/elicitations/elicit_a1");
    expect(read.body.status).toBe("resolved");
    expect(read.body.verdict).toMatchObject({ action: "accept", reason: "answered", resolved_by: "user_42" });
  });

  it("gives false on decline, 404 for an unknown id and 409 for a second, different verdict", async () => {
    const runner = await t.runner({ sessions: [{ session_id: "conv_b" }] });
    const approved = runner.waitForUserApproval({ sessionId: "conv_b", elicitationId: "elicit_b1", params: ask() });
    await expect.poll(async () => (await t.http(human, "GET", "/v1/elicitations/elicit_b1")).status).toBe(200);

    const decline = { type: "approval", elicitation_id: "elicit_b1", action: "decline" };
    expect((await t.http(human, "POST", "/v1/sessions/conv_b/events", decline)).status).toBe(200);
    await expect(approved).resolves.toBe(false);

    expect((await t.http(human, "POST", "/v1/sessions/conv_b/events", decline)).status).toBe(200);
    const other = await t.http(human, "POST", "/v1/sessions/conv_b/events", { ...decline, action: "accept" });
    expect(other.status).toBe(409);
    expect(other.body.error).toMatchObject({ code: "conflict", verdict: { action: "decline", resolved_by: "user_42", reason: "answered" } });

    const unknown = await t.http(human, "POST", "/v1/sessions/conv_b/events", { ...decline, elicitation_id: "elicit_nope" });
    expect(unknown).toMatchObject({ status: 404, body: { error: { code: "not_found" } } });
    expect((await t.http(human, "GET", "/v1/elicitations/elicit_nope")).status).toBe(404);
  });

  it("lets exactly one of two simultaneous verdicts win, and the runner hears it once", async () => {
    const socket = await t.socket(runnerToken);
    await socket.send({ action: "hello", sessions: [{ session_id: "conv_c" }], ref: "h" });
    await socket.next((f) => f.type === "hello.ok");
    for (let i = 0; i < 10; i++) {
      const id = `elicit_race_${i}`;
      expect((await socket.request({ action: "elicit", session_id: "conv_c", elicitation_id: id, params: ask() })).type).toBe("elicitation.parked");
      const verdicts = await Promise.all((["accept", "decline"] as const).map((action) => t.http(human, "POST", "/v1/sessions/conv_c/events", { type: "approval", elicitation_id: id, action })));
      expect(verdicts.map((v) => v.status).sort()).toEqual([200, 409]);
      const winner = verdicts.find((v) => v.status === 200)!.body.action;
      const frame = await socket.next((f) => f.type === "elicitation.verdict" && f.elicitation_id === id);
      expect(frame).toMatchObject({ action: winner, reason: "answered", session_id: "conv_c" });
    }
    const session = await t.http(human, "GET", "/v1/sessions/conv_c");
    expect(session.body.pending_elicitations_count).toBe(0);
    // Give the stream safety net time to (wrongly) deliver again before counting.
    await new Promise((r) => setTimeout(r, 300));
    for (let i = 0; i < 10; i++) expect(socket.count((f) => f.type === "elicitation.verdict" && f.elicitation_id === `elicit_race_${i}`)).toBe(1);
  });

  it("refuses malformed frames with the protocol's error codes, keeps the connection open and stores nothing", async () => {
    const socket = await t.socket(runnerToken);
    await socket.request({ action: "hello", sessions: [{ session_id: "conv_bad" }] });
    const before = await t.quietScan();
    const cases: [unknown, string][] = [
      ["{not json", "bad_request"],
      [{ action: "launch_missiles", ref: "x1" }, "bad_request"],
      [{ action: "elicit", ref: "x2", session_id: "conv_bad", params: { message: "x".repeat(4_001) } }, "bad_request"],
      [
        {
          action: "elicit",
          ref: "x3",
          session_id: "conv_bad",
          params: {
            message: "hi",
            requestedSchema: {
              type: "object",
              properties: {
                a: { type: "string", default: "y".repeat(3_900) },
                b: { type: "string", default: "y".repeat(3_900) },
                c: { type: "string", default: "y".repeat(3_900) },
                d: { type: "string", default: "y".repeat(3_900) },
                e: { type: "string", default: "y".repeat(3_900) },
                f: { type: "string", default: "y".repeat(3_900) },
                g: { type: "string", default: "y".repeat(3_900) },
              },
            },
          },
        },
        "payload_too_large",
      ],
      [{ action: "elicit", ref: "x4", session_id: "bad id with spaces", params: { message: "hi" } }, "bad_request"],
      [{ action: "elicit", ref: "x5", session_id: "conv_bad", elicitation_id: "x".repeat(129), params: { message: "hi" } }, "bad_request"],
      [{ action: "elicit", ref: "x6", session_id: "conv_unknown", params: { message: "hi" } }, "not_found"],
      [{ action: "cancel", ref: "x7", elicitation_id: "elicit_missing" }, "not_found"],
    ];
    for (const [frame, code] of cases) {
      socket.frames.length = 0;
      socket.send(frame);
      const error = await socket.next((f) => f.type === "error");
      expect(error.code, JSON.stringify(frame).slice(0, 80)).toBe(code);
      if (typeof frame === "object") expect(error.ref).toBe((frame as { ref: string }).ref);
    }
    expect((await socket.request({ action: "ping" })).type).toBe("pong");
    expect(await t.quietScan()).toEqual(before);
  });

  it("answers the same request again with the same id and refuses other params or another session", async () => {
    const runner = await t.token("runner");
    await t.http(runner, "PUT", "/v1/sessions/conv_d", {});
    const raise = { type: "response.elicitation_request", elicitation_id: "elicit_d1", params: ask(), timeout_seconds: 60 };
    const first = await t.http(runner, "POST", "/v1/sessions/conv_d/events", raise);
    expect(first.status).toBe(201);
    const again = await t.http(runner, "POST", "/v1/sessions/conv_d/events", raise);
    expect(again).toEqual({ status: 200, body: first.body });
    const other = await t.http(runner, "POST", "/v1/sessions/conv_d/events", { ...raise, params: ask("Something else?") });
    expect(other).toEqual({ status: 409, body: { error: { code: "conflict", message: "this elicitation id exists with other params" } } });
    // The same params in another session: the refusal says what differs.
    await t.http(runner, "PUT", "/v1/sessions/conv_d2", {});
    const elsewhere = await t.http(runner, "POST", "/v1/sessions/conv_d2/events", raise);
    expect(elsewhere).toEqual({ status: 409, body: { error: { code: "conflict", message: "this elicitation id exists in another session" } } });
    expect((await t.http(human, "GET", "/v1/sessions/conv_d")).body.pending_elicitations_count).toBe(1);
    expect((await t.http(human, "GET", "/v1/sessions/conv_d2")).body.pending_elicitations_count).toBe(0);
  });

  it("an elicit sent again after its verdict, on the connection that already heard it, is answered with the verdict again; so is a resume", async () => {
    const socket = await t.socket(runnerToken);
    await socket.request({ action: "hello", sessions: [{ session_id: "conv_again" }] });
    const elicit = { action: "elicit", session_id: "conv_again", elicitation_id: "elicit_again", params: ask() };
    expect((await socket.request(elicit)).type).toBe("elicitation.parked");
    await t.http(human, "POST", "/v1/sessions/conv_again/events", { type: "approval", elicitation_id: "elicit_again", action: "accept" });
    await socket.next((f) => f.type === "elicitation.verdict");
    const heard = () => socket.count((f) => f.type === "elicitation.verdict" && f.elicitation_id === "elicit_again");
    expect((await socket.request(elicit)).type).toBe("elicitation.parked");
    await expect.poll(heard).toBe(2);
    await socket.request({ action: "hello", sessions: [], resume: ["elicit_again"] });
    await expect.poll(heard).toBe(3);
    expect(socket.frames.filter((f) => f.type === "elicitation.verdict").at(-1)).toMatchObject({ action: "accept", reason: "answered" });
  });

  it("an answering tab hears its verdict in the reply, not as a resolved event; only its own tab is spared", async () => {
    const runner = await t.token("runner");
    await t.http(runner, "PUT", "/v1/sessions/conv_tab", {});
    const raise = (id: string) => t.http(runner, "POST", "/v1/sessions/conv_tab/events", { type: "response.elicitation_request", elicitation_id: id, params: ask() });
    const tab = async (token: string) => {
      const socket = await t.socket(token);
      const subscribed = await socket.request({ action: "subscribe", sessions: "*", badges: false });
      expect(subscribed).toMatchObject({ type: "subscribed", connection_id: expect.any(String) });
      return { socket, id: subscribed.connection_id as string };
    };
    const answering = await tab(human);
    const otherTab = await tab(human);
    const colleague = await tab(await t.token("human", "user_43"));
    await raise("tab_1");
    await raise("tab_2");
    const answer = (id: string, connection: string) =>
      t.http(human, "POST", "/v1/sessions/conv_tab/events", { type: "approval", elicitation_id: id, action: "accept", answering_connection_id: connection });

    const reply = await answer("tab_1", answering.id);
    expect(reply).toEqual({ status: 200, body: { elicitation_id: "tab_1", action: "accept", reason: "answered", resolved_by: "user_42", resolved_at: expect.any(String), status: "resolved" } });
    // Naming a colleague's connection spares nobody: it is not this token's.
    expect((await answer("tab_2", colleague.id)).status).toBe(200);
    const resolved = (id: string) => (f: { type: string; elicitation_id?: string }) => f.type === "response.elicitation_resolved" && f.elicitation_id === id;
    for (const { socket } of [otherTab, colleague]) for (const id of ["tab_1", "tab_2"]) await socket.next(resolved(id));
    // A later batch's event: whatever the earlier batches pushed to the answering tab has come by then.
    await raise("tab_3");
    await answering.socket.next((f) => f.type === "response.elicitation_request" && f.elicitation_id === "tab_3");
    await answering.socket.next(resolved("tab_2"));
    expect(answering.socket.count(resolved("tab_1"))).toBe(0);
    const resolvedEvent = (await otherTab.socket.next(resolved("tab_1"))) as Record<string, unknown>;
    expect({ ...resolvedEvent, type: undefined, session_id: undefined }).toEqual({ ...reply.body, status: undefined, type: undefined, session_id: undefined });
    // The read shows the verdict as ever, without the connection.
    expect((await t.http(human, "GET", "/v1/elicitations/tab_1")).body.verdict).toEqual({ action: "accept", reason: "answered", resolved_by: "user_42", resolved_at: reply.body.resolved_at });
  });
});
