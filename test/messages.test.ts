/** Rule 6: messages are held behind a pending approval, queued for an absent runner, never lost or doubled. */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Stores } from "../functions/domain/stores/index.js";
import type { SessionMessage } from "../sdk/runner.js";
import { domainOver } from "./support/domain.js";
import { sleep, startTollgate, type Harness } from "./support/tollgate.js";

/** The stores with the message queue's and the sessions' reads counted, and a hook that runs (once) before the next flush lease. */
function observed(real: Stores, seen: { reads: string[]; beforeLease?: () => Promise<unknown> }): Stores {
  return {
    ...real,
    messages: { ...real.messages, queued: (...args) => (seen.reads.push("queue"), real.messages.queued(...args)) },
    sessions: {
      ...real.sessions,
      get: (...args) => (seen.reads.push("session"), real.sessions.get(...args)),
      async lease(...args) {
        const hook = seen.beforeLease;
        seen.beforeLease = undefined;
        await hook?.();
        return real.sessions.lease(...args);
      },
    },
  };
}

let t: Harness;
let human: string;
let runner: string;

beforeAll(async () => {
  t = await startTollgate();
  human = await t.token("human");
  runner = await t.token("runner");
});
afterAll(() => t?.stop());

const send = (session: string, text: string, from?: string) => t.http(runner, "POST", `/v1/sessions/${session}/messages`, { text, ...(from ? { from_session_id: from } : {}) });
const messages = (frames: any[]) => frames.filter((f) => f.type === "session.message" && f.kind === "message").map((f) => f.text);

it("delivers at once to a connected runner whose session awaits nothing", async () => {
  const socket = await t.socket(runner);
  await socket.request({ action: "hello", sessions: [{ session_id: "msg_open" }, { session_id: "msg_sender" }] });
  const sent = await send("msg_open", "hello there", "msg_sender");
  expect(sent.status).toBe(200);
  expect(sent.body.status).toBe("delivered");
  const frame = await socket.next((f) => f.type === "session.message");
  expect(frame).toMatchObject({ session_id: "msg_open", kind: "message", text: "hello there", from_session_id: "msg_sender", message_id: sent.body.message_id });
});

it("reads the queue twice and the session once to flush a message to a connected runner", async () => {
  const socket = await t.socket(runner);
  await socket.request({ action: "hello", sessions: [{ session_id: "msg_reads" }] });
  const seen = { reads: [] as string[] };
  const tollgate = domainOver(t, { db: (real) => observed(real, seen) });
  expect((await tollgate.messages.send("acme", "msg_reads", { kind: "message", text: "counted" })).status).toBe("delivered");
  await socket.next((f) => f.type === "session.message" && f.text === "counted");
  // A look (queue, then session), the lease (which hands the session back), the delivery, a last look at an empty queue.
  expect(seen.reads).toEqual(["queue", "session", "queue"]);
});

it("holds a message when an approval is raised after the flush looked but before it took the lease", async () => {
  const socket = await t.socket(runner);
  await socket.request({ action: "hello", sessions: [{ session_id: "msg_race" }] });
  const seen = {
    reads: [] as string[],
    beforeLease: () => socket.request({ action: "elicit", session_id: "msg_race", elicitation_id: "race_el", params: { message: "wait" } }),
  };
  const tollgate = domainOver(t, { db: (real) => observed(real, seen) });
  expect((await tollgate.messages.send("acme", "msg_race", { kind: "message", text: "not yet" })).status).toBe("held");
  expect(seen.beforeLease).toBeUndefined();
  await sleep(300);
  expect(messages(socket.frames)).toEqual([]);
  await t.http(human, "POST", "/v1/sessions/msg_race/events", { type: "approval", elicitation_id: "race_el", action: "accept" });
  await expect.poll(() => messages(socket.frames)).toEqual(["not yet"]);
});

it("holds messages while an approval is pending and delivers them in order once none is", async () => {
  const received: SessionMessage[] = [];
  const r = await t.runner({ sessions: [{ session_id: "msg_gated" }], onMessage: (m) => received.push(m) });
  const first = r.waitForUserApproval({ sessionId: "msg_gated", elicitationId: "gate_1", params: { message: "first?" } });
  const second = r.waitForUserApproval({ sessionId: "msg_gated", elicitationId: "gate_2", params: { message: "second?" } });
  await expect.poll(async () => (await t.http(human, "GET", "/v1/sessions/msg_gated")).body.pending_elicitations_count).toBe(2);

  for (const text of ["one", "two", "three"]) {
    const held = await send("msg_gated", text);
    expect(held.status).toBe(202);
    expect(held.body.status).toBe("held");
  }
  await t.http(human, "POST", "/v1/sessions/msg_gated/events", { type: "approval", elicitation_id: "gate_1", action: "accept" });
  await first;
  await sleep(500);
  expect(received).toEqual([]); // one approval still pending: the gate stays shut
  expect(r.hasPending("msg_gated")).toBe(true);

  await t.http(human, "POST", "/v1/sessions/msg_gated/events", { type: "approval", elicitation_id: "gate_2", action: "decline" });
  await second;
  await expect.poll(() => received.length).toBe(3);
  expect(received.map((m) => m.text)).toEqual(["one", "two", "three"]);
  await sleep(300);
  expect(received).toHaveLength(3);
});

it("queues messages for a session with no runner and delivers them, in order and once, at its next hello", async () => {
  const first = await t.socket(runner);
  await first.request({ action: "hello", sessions: [{ session_id: "msg_away" }] });
  first.close();
  await sleep(200);
  for (const text of ["while you were out", "and another"]) {
    const queued = await send("msg_away", text);
    expect(queued).toMatchObject({ status: 200, body: { status: "queued" } });
  }
  const back = await t.socket(runner);
  back.send({ action: "hello", sessions: [{ session_id: "msg_away" }], ref: "h" });
  await back.next((f) => f.type === "session.message" && f.text === "and another");
  expect(back.frames.findIndex((f) => f.type === "hello.ok")).toBe(0);
  expect(messages(back.frames)).toEqual(["while you were out", "and another"]);

  const again = await t.socket(runner);
  await again.request({ action: "hello", sessions: [{ session_id: "msg_away" }] });
  await sleep(300);
  expect(messages(again.frames)).toEqual([]);
});

it("keeps held and new messages in one order when the gate opens while more arrive", async () => {
  const socket = await t.socket(runner);
  await socket.request({ action: "hello", sessions: [{ session_id: "msg_burst" }] });
  await socket.request({ action: "elicit", session_id: "msg_burst", elicitation_id: "burst_el", params: { message: "wait" } });
  const texts = Array.from({ length: 20 }, (_, i) => `m${i}`);
  const sending = (async () => {
    for (const text of texts) await send("msg_burst", text);
  })();
  await sleep(30);
  await t.http(human, "POST", "/v1/sessions/msg_burst/events", { type: "approval", elicitation_id: "burst_el", action: "accept" });
  await sending;
  await expect.poll(() => messages(socket.frames).length).toBe(20);
  expect(messages(socket.frames)).toEqual(texts);
});

it("refuses messages to unknown sessions, from unknown senders, and bad bodies", async () => {
  expect((await send("msg_nobody", "hi")).status).toBe(404);
  await t.http(runner, "PUT", "/v1/sessions/msg_target", {});
  expect((await send("msg_target", "hi", "msg_ghost")).status).toBe(404);
  expect((await t.http(runner, "POST", "/v1/sessions/msg_target/messages", { text: "" })).status).toBe(400);
  expect((await t.http(runner, "POST", "/v1/sessions/msg_target/messages", { text: "x".repeat(16_001) })).status).toBe(400);
  expect((await t.http(human, "POST", "/v1/sessions/msg_target/messages", { text: "hi" })).status).toBe(403);
});
