/**
 * Every way an elicitation ends leaves one resolved event, the right frame at the runner
 * and the badge back where it was (docs/protocol.md "Lifecycle rules" 1, 2, 3, 7), durably and exactly once. The
 * deadline and the runner-gone grace run in real time (1 s) as the end-to-end proof; waits past
 * the grace move the runtime's clock instead.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, sleep, startTollgate, type Harness, type TestSocket } from "./support/tollgate.js";

let t: Harness;
let human: string;
let inbox: TestSocket;

beforeAll(async () => {
  t = await startTollgate({ reconnectGraceSeconds: 1 });
  human = await t.token("human", "user_7");
  inbox = await t.socket(human);
  expect((await inbox.request({ action: "subscribe", sessions: "*" })).type).toBe("subscribed");
});
afterAll(() => t?.stop());

const resolvedEvents = (id: string) => inbox.count((f) => f.type === "response.elicitation_resolved" && f.elicitation_id === id);
const count = async (session: string) => (await t.http(human, "GET", `/v1/sessions/${session}`)).body.pending_elicitations_count;
const lastBadge = (session: string) => inbox.frames.filter((f) => f.type === "session.badge" && f.session_id === session).at(-1)?.pending_elicitations_count;

async function parkedSocket(session: string, ids: string[], timeout_seconds?: number, parent?: string) {
  const socket = await t.socket(await t.token("runner"));
  await socket.request({ action: "hello", sessions: [{ session_id: session, ...(parent ? { parent_session_id: parent } : {}) }] });
  for (const id of ids) {
    const parked = await socket.request({ action: "elicit", session_id: session, elicitation_id: id, params: { message: `May I ${id}?` }, timeout_seconds });
    expect(parked.type).toBe("elicitation.parked");
  }
  return socket;
}

/** After an end: exactly one resolved event, exactly one verdict frame, and the badge back to `badge`. */
async function expectEnded(socket: TestSocket | undefined, session: string, id: string, verdict: { action: string; reason: string }, badge = 0) {
  await eventually(() => expect(resolvedEvents(id)).toBe(1));
  if (socket) {
    const frame = await socket.next((f) => f.type === "elicitation.verdict" && f.elicitation_id === id);
    expect(frame).toMatchObject(verdict);
  }
  expect(await count(session)).toBe(badge);
  await eventually(() => expect(lastBadge(session)).toBe(badge));
  await sleep(200); // a second event or frame would have arrived by now
  expect(resolvedEvents(id)).toBe(1);
  if (socket) expect(socket.count((f) => f.type === "elicitation.verdict" && f.elicitation_id === id)).toBe(1);
  const read = await t.http(human, "GET", `/v1/elicitations/${id}`);
  expect(read.body.verdict).toMatchObject(verdict);
}

describe("each end", () => {
  it("deadline: silence resolves decline/timeout, by tollgate", async () => {
    const socket = await parkedSocket("conv_deadline", ["el_deadline"], 1);
    expect(await count("conv_deadline")).toBe(1);
    await expectEnded(socket, "conv_deadline", "el_deadline", { action: "decline", reason: "timeout" });
    expect((await t.http(human, "GET", "/v1/elicitations/el_deadline")).body.verdict.resolved_by).toBe("tollgate");
  });

  it("runner cancel: the reply is the verdict frame", async () => {
    const socket = await parkedSocket("conv_cancel", ["el_cancel", "el_keep"]);
    const reply = await socket.request({ action: "cancel", elicitation_id: "el_cancel" });
    expect(reply).toMatchObject({ type: "elicitation.verdict", elicitation_id: "el_cancel", action: "cancel", reason: "cancelled" });
    await expectEnded(socket, "conv_cancel", "el_cancel", { action: "cancel", reason: "cancelled" }, 1);
  });

  it("runner resolved event: the runner gave up waiting over HTTP", async () => {
    const socket = await parkedSocket("conv_gaveup", ["el_gaveup"]);
    const runner = await t.token("runner");
    const gaveUp = await t.http(runner, "POST", "/v1/sessions/conv_gaveup/events", { type: "response.elicitation_resolved", elicitation_id: "el_gaveup" });
    expect(gaveUp).toEqual({ status: 200, body: { elicitation_id: "el_gaveup", status: "resolved" } });
    await expectEnded(socket, "conv_gaveup", "el_gaveup", { action: "cancel", reason: "cancelled" });
    expect(await t.http(runner, "POST", "/v1/sessions/conv_gaveup/events", { type: "response.elicitation_resolved", elicitation_id: "el_gaveup" })).toEqual(gaveUp);
    // An id the session never raised is no elicitation to give up on.
    const unknown = await t.http(runner, "POST", "/v1/sessions/conv_gaveup/events", { type: "response.elicitation_resolved", elicitation_id: "el_never" });
    expect(unknown).toMatchObject({ status: 404, body: { error: { code: "not_found" } } });
  });

  it("session cancel with descendants: every pending one below resolves, each runner gets its frame", async () => {
    const root = await parkedSocket("conv_run", ["el_run_1"]);
    const child = await parkedSocket("conv_run_child", ["el_child_1", "el_child_2"], undefined, "conv_run");
    const grandchild = await parkedSocket("conv_run_grandchild", ["el_grand_1"], undefined, "conv_run_child");
    const runner = await t.token("runner");
    const cancelled = await t.http(runner, "POST", "/v1/sessions/conv_run/cancel", { descendants: true });
    expect(cancelled.body).toEqual({ cancelled: 4 });
    const cancel = { action: "cancel", reason: "cancelled" };
    await expectEnded(root, "conv_run", "el_run_1", cancel);
    await expectEnded(child, "conv_run_child", "el_child_1", cancel);
    await expectEnded(child, "conv_run_child", "el_child_2", cancel);
    await expectEnded(grandchild, "conv_run_grandchild", "el_grand_1", cancel);
    expect((await t.http(runner, "POST", "/v1/sessions/conv_run/cancel", { descendants: true })).body).toEqual({ cancelled: 0 });
  });

  it("session cancel without descendants leaves the child's elicitations pending", async () => {
    await parkedSocket("conv_solo", ["el_solo"]);
    await parkedSocket("conv_solo_child", ["el_solo_child"], undefined, "conv_solo");
    const runner = await t.token("runner");
    expect((await t.http(runner, "POST", "/v1/sessions/conv_solo/cancel", {})).body).toEqual({ cancelled: 1 });
    expect(await count("conv_solo_child")).toBe(1);
  });

  it("runner gone: not resumed within the grace, it resolves cancel/runner_gone", async () => {
    const socket = await parkedSocket("conv_gone", ["el_gone"]);
    socket.close();
    await expectEnded(undefined, "conv_gone", "el_gone", { action: "cancel", reason: "runner_gone" });
    expect((await t.http(human, "GET", "/v1/elicitations/el_gone")).body.verdict.resolved_by).toBe("tollgate");
  });
  it("runner gone covers an elicitation parked in a session its hello never named", async () => {
    const runner = await t.token("runner");
    await t.http(runner, "PUT", "/v1/sessions/conv_unnamed", {});
    const socket = await t.socket(runner);
    await socket.request({ action: "hello", sessions: [] });
    expect((await socket.request({ action: "elicit", session_id: "conv_unnamed", elicitation_id: "el_unnamed", params: { message: "unnamed?" } })).type).toBe("elicitation.parked");
    socket.close();
    await expectEnded(undefined, "conv_unnamed", "el_unnamed", { action: "cancel", reason: "runner_gone" });
  });
});

describe("resume", () => {
  it("delivers a verdict given while the runner was away exactly once, at its hello with resume", async () => {
    const first = await parkedSocket("conv_resume", ["el_resume"]);
    first.close();
    await sleep(100);
    await t.http(human, "POST", "/v1/sessions/conv_resume/events", { type: "approval", elicitation_id: "el_resume", action: "accept" });
    const second = await t.socket(await t.token("runner"));
    second.send({ action: "hello", sessions: [{ session_id: "conv_resume" }], resume: ["el_resume"], ref: "h" });
    const [ok, verdict] = [await second.next((f) => f.type === "hello.ok"), await second.next((f) => f.type === "elicitation.verdict")];
    expect(ok.ref).toBe("h");
    expect(second.frames.indexOf(ok)).toBeLessThan(second.frames.indexOf(verdict));
    expect(verdict).toMatchObject({ elicitation_id: "el_resume", action: "accept", reason: "answered" });
    await t.elapse(1_500); // past the reconnect grace: nothing more arrives, nothing resolves again
    await sleep(200);
    expect(second.count((f) => f.type === "elicitation.verdict")).toBe(1);
    expect(resolvedEvents("el_resume")).toBe(1);
  });

  it("rebinds a pending elicitation to the new connection, so the grace does not end it", async () => {
    const first = await parkedSocket("conv_rebind", ["el_rebind"]);
    first.close();
    const second = await t.socket(await t.token("runner"));
    await second.request({ action: "hello", sessions: [{ session_id: "conv_rebind" }], resume: ["el_rebind"] });
    await t.elapse(1_500); // past the reconnect grace
    await sleep(200);
    expect((await t.http(human, "GET", "/v1/elicitations/el_rebind")).body.status).toBe("pending");
    await t.http(human, "POST", "/v1/sessions/conv_rebind/events", { type: "approval", elicitation_id: "el_rebind", action: "decline" });
    expect(await second.next((f) => f.type === "elicitation.verdict")).toMatchObject({ action: "decline" });
  });

  it("answers a re-sent elicit of a resolved id at once, with the verdict", async () => {
    const first = await parkedSocket("conv_resend", ["el_resend"]);
    first.close();
    await t.http(human, "POST", "/v1/sessions/conv_resend/events", { type: "approval", elicitation_id: "el_resend", action: "accept" });
    const second = await t.socket(await t.token("runner"));
    await second.request({ action: "hello", sessions: [{ session_id: "conv_resend" }] });
    const parked = await second.request({ action: "elicit", session_id: "conv_resend", elicitation_id: "el_resend", params: { message: "May I el_resend?" } });
    expect(parked.type).toBe("elicitation.parked");
    expect(await second.next((f) => f.type === "elicitation.verdict")).toMatchObject({ elicitation_id: "el_resend", action: "accept" });
  });
});

describe("races", () => {
  it("a verdict and the deadline at the same instant: one winner, counts exact (50 times)", { timeout: 120_000 }, async () => {
    const socket = await parkedSocket("conv_race", []);
    for (let i = 0; i < 50; i++) {
      const id = `el_race_${i}`;
      await socket.request({ action: "elicit", session_id: "conv_race", elicitation_id: id, params: { message: "race?" } });
      const [answer] = await Promise.all([
        t.http(human, "POST", "/v1/sessions/conv_race/events", { type: "approval", elicitation_id: id, action: "accept" }),
        t.runtime.invoke("timerDeadline", { tenant: "acme", elicitation_id: id }),
      ]);
      const standing = (await t.http(human, "GET", `/v1/elicitations/${id}`)).body.verdict;
      expect([200, 409]).toContain(answer.status);
      expect(standing.reason).toBe(answer.status === 200 ? "answered" : "timeout");
      const frame = await socket.next((f) => f.type === "elicitation.verdict" && f.elicitation_id === id);
      expect(frame.action).toBe(standing.action);
    }
    expect(await count("conv_race")).toBe(0);
    await sleep(300);
    for (let i = 0; i < 50; i++) expect(socket.count((f) => f.type === "elicitation.verdict" && f.elicitation_id === `el_race_${i}`)).toBe(1);
    await eventually(() => expect(inbox.count((f) => f.type === "response.elicitation_resolved" && f.session_id === "conv_race")).toBe(50));
  });

  it("a deadline schedule that fires twice, or late, changes nothing once resolved", async () => {
    const socket = await parkedSocket("conv_twice", ["el_twice"]);
    await t.http(human, "POST", "/v1/sessions/conv_twice/events", { type: "approval", elicitation_id: "el_twice", action: "accept" });
    for (let i = 0; i < 3; i++) await t.runtime.invoke("timerDeadline", { tenant: "acme", elicitation_id: "el_twice" });
    await expectEnded(socket, "conv_twice", "el_twice", { action: "accept", reason: "answered" });
  });
});
