/**
 * A parent hears once when its sub-agent stays blocked past the grace (the default 120 s, fired by
 * the local Scheduler stand-in as the test moves the runtime's clock), and once more when the block
 * clears (docs/protocol.md "Lifecycle rules" 4, 5).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GetScheduleCommand, SchedulerClient } from "@aws-sdk/client-scheduler";
import { scheduleName, timerKeys } from "../functions/domain/timers.js";
import { sleep, startTollgate, type Harness, type TestSocket } from "./support/tollgate.js";

let t: Harness;
let human: string;
let runner: string;

beforeAll(async () => {
  t = await startTollgate();
  human = await t.token("human");
  runner = await t.token("runner");
});
afterAll(() => t?.stop());

const notices = (socket: TestSocket, session: string) => socket.frames.filter((f) => f.type === "session.message" && f.kind === "notice" && f.session_id === session);

/** A parent runner (connected or not) and a child session of it with one elicitation raised. */
async function blockedChild(name: string, options: { parentOnline?: boolean; title?: string; message?: string } = {}) {
  const parentId = `${name}_parent`;
  const childId = `${name}_child`;
  const parent = await t.socket(runner);
  await parent.request({ action: "hello", sessions: [{ session_id: parentId }] });
  if (options.parentOnline === false) parent.close();
  const child = await t.socket(runner);
  await child.request({ action: "hello", sessions: [{ session_id: childId, parent_session_id: parentId, title: options.title }] });
  const parked = await child.request({ action: "elicit", session_id: childId, elicitation_id: `${name}_el`, params: { message: options.message ?? "Approve running 'git fetch'?" } });
  expect(parked.type).toBe("elicitation.parked");
  return { parent, child, parentId, childId, elicitationId: `${name}_el` };
}

const GRACE_MS = 120_000;

/** Let the escalation grace of this elicitation pass: its schedule is made, then fires. */
async function passGrace(elicitationId: string) {
  await t.scheduled(`escalation-acme-${elicitationId}-`);
  await t.elapse(GRACE_MS);
}

const answer = (session: string, id: string) => t.http(human, "POST", `/v1/sessions/${session}/events`, { type: "approval", elicitation_id: id, action: "accept" });

describe("escalation", () => {
  it("tells the parent once after the grace, and once more when it resolves", async () => {
    const b = await blockedChild("esc1", { title: "codex:auth-refactor" });
    await passGrace(b.elicitationId);
    const block = await b.parent.next((f) => f.type === "session.message" && f.kind === "notice");
    expect(block.session_id).toBe(b.parentId);
    expect(block.text).toMatch(/^\[System: sub-agent codex\/auth-refactor is blocked awaiting human approval: Approve running 'git fetch'\?/);
    await t.elapse(GRACE_MS);
    await sleep(300); // a second notice would have arrived by now
    expect(notices(b.parent, b.parentId)).toHaveLength(1);

    await answer(b.childId, b.elicitationId);
    await b.parent.next((f) => f.type === "session.message" && f.text.includes("approval was resolved"));
    await sleep(500);
    const all = notices(b.parent, b.parentId);
    expect(all).toHaveLength(2);
    expect(all[1].text).toContain("codex/auth-refactor's pending approval was resolved");
  });

  it("says nothing when answered within the grace", async () => {
    const b = await blockedChild("esc2");
    await answer(b.childId, b.elicitationId);
    await t.elapse(GRACE_MS);
    await sleep(300);
    expect(notices(b.parent, b.parentId)).toHaveLength(0);
  });

  it("says nothing for a top-level session", async () => {
    const top = await t.socket(runner);
    await top.request({ action: "hello", sessions: [{ session_id: "esc_top" }] });
    await top.request({ action: "elicit", session_id: "esc_top", elicitation_id: "esc_top_el", params: { message: "top?" } });
    await t.elapse(GRACE_MS);
    await sleep(300);
    expect(top.count((f) => f.type === "session.message")).toBe(0);
    expect((await t.http(human, "GET", "/v1/elicitations/esc_top_el")).body.status).toBe("pending");
  });

  it("sends one notice however often the schedule fires", async () => {
    const b = await blockedChild("esc3");
    const input = { tenant: "acme", elicitation_id: b.elicitationId, round: 1 };
    await Promise.all([1, 2, 3].map(() => t.runtime.invoke("timerEscalation", input)));
    await b.parent.next((f) => f.type === "session.message" && f.kind === "notice");
    await passGrace(b.elicitationId); // the scheduled firing comes too
    await sleep(300);
    await t.runtime.invoke("timerEscalation", input);
    expect(notices(b.parent, b.parentId)).toHaveLength(1);
  });

  it("queues the notice for an offline parent and delivers it at its hello", async () => {
    const b = await blockedChild("esc4", { parentOnline: false });
    await passGrace(b.elicitationId);
    const back = await t.socket(runner);
    back.send({ action: "hello", sessions: [{ session_id: b.parentId }], ref: "h" });
    const notice = await back.next((f) => f.type === "session.message" && f.kind === "notice");
    expect(back.frames.findIndex((f) => f.type === "hello.ok")).toBeLessThan(back.frames.indexOf(notice));
    expect(notice.text).toContain(`sub-agent ${b.childId} is blocked`);
    await answer(b.childId, b.elicitationId);
    await back.next((f) => f.type === "session.message" && f.text.includes("approval was resolved"));
  });

  it("withdraws a queued notice when the block resolves before the parent comes back", async () => {
    const b = await blockedChild("esc5", { parentOnline: false });
    await passGrace(b.elicitationId);
    await answer(b.childId, b.elicitationId);
    await sleep(500);
    const back = await t.socket(runner);
    await back.request({ action: "hello", sessions: [{ session_id: b.parentId }] });
    await sleep(500);
    expect(back.count((f) => f.type === "session.message")).toBe(0);
  });

  it("deletes the pending escalation schedule when the block resolves in time", async () => {
    const b = await blockedChild("esc6");
    const scheduler = new SchedulerClient({ endpoint: t.runtime.httpUrl, region: "us-east-1", credentials: { accessKeyId: "local", secretAccessKey: "local" } });
    const name = scheduleName("escalation", timerKeys.escalation({ tenant: "acme", elicitation_id: b.elicitationId }));
    const state = () =>
      scheduler.send(new GetScheduleCommand({ Name: name, GroupName: "tollgate" })).then(
        () => "exists",
        (e: Error) => e.name,
      );
    await expect.poll(state, { interval: 10 }).toBe("exists");
    await answer(b.childId, b.elicitationId);
    await expect.poll(state).toBe("ResourceNotFoundException");
    scheduler.destroy();
  });
});
