/** The runner keeps every frame it sends within what API Gateway accepts: 32 KB per frame. */
import { afterAll, beforeAll, expect, it } from "vitest";
import { FRAME_BYTES, helloFrames } from "../sdk/frames.js";
import { TollgateRunner } from "../sdk/runner.js";
import { startTollgate, type Harness } from "./support/tollgate.js";

/** The machine may be busy: allow views that follow a write some seconds. */
const POLL = { timeout: 15_000 };
let t: Harness;
beforeAll(async () => {
  t = await startTollgate();
});
afterAll(() => t?.stop());

const bytes = (frame: unknown) => new TextEncoder().encode(JSON.stringify({ ...(frame as object), ref: Number.MAX_SAFE_INTEGER })).length;
/** A form with property descriptions in all: params of about 40 KB. */
const oversizeSchema = {
  type: "object" as const,
  properties: Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`field_${i}`, { type: "string", description: "é".repeat(700) }])),
};

it("refuses an over-size elicit with payload_too_large before it connects or sends anything", async () => {
  let tokens = 0;
  const runner = new TollgateRunner({ url: t.runtime.wsUrl, token: () => (tokens++, t.token("runner")) });
  const refused = runner.elicit({ sessionId: "frames_s", elicitationId: "frames_big", params: { message: "big?", requestedSchema: oversizeSchema } });
  await expect(refused).rejects.toMatchObject({ name: "TollgateError", code: "payload_too_large" });
  expect(tokens).toBe(0);
  expect(runner.hasPending("frames_s")).toBe(false);
  runner.close();
});

it("keeps its connection when it refuses an over-size frame, and the next elicit goes through", async () => {
  const runner = await t.runner({ sessions: [{ session_id: "frames_open" }] });
  const before = runner.connectionId;
  await expect(runner.elicit({ sessionId: "frames_open", elicitationId: "frames_open_big", params: { message: "big?", requestedSchema: oversizeSchema } })).rejects.toMatchObject({
    code: "payload_too_large",
  });
  const human = await t.token("human");
  expect((await t.http(human, "GET", "/v1/elicitations/frames_open_big")).status).toBe(404);
  const wait = runner.elicit({ sessionId: "frames_open", elicitationId: "frames_open_ok", params: { message: "small?" } });
  await expect.poll(async () => (await t.http(human, "GET", "/v1/elicitations/frames_open_ok")).body?.status, POLL).toBe("pending");
  await t.http(human, "POST", "/v1/sessions/frames_open/events", { type: "approval", elicitation_id: "frames_open_ok", action: "accept" });
  await expect(wait).resolves.toMatchObject({ action: "accept" });
  expect(runner.connectionId).toBe(before);
});

it("splits a hello into frames that each fit and keep the protocol's counts, in order", () => {
  const sessions = Array.from({ length: 250 }, (_, i) => ({ session_id: `s_${i}`, title: `agent:${"t".repeat(240)}` }));
  const resume = Array.from({ length: 2_500 }, (_, i) => `elicit_${"x".repeat(100)}_${i}`);
  const frames = helloFrames(sessions, resume) as { action: string; sessions: unknown[]; resume?: string[] }[];
  expect(frames.length).toBeGreaterThan(3);
  for (const frame of frames) {
    expect(frame.action).toBe("hello");
    expect(bytes(frame)).toBeLessThanOrEqual(FRAME_BYTES);
    expect(frame.sessions.length).toBeLessThanOrEqual(100);
    expect((frame.resume ?? []).length).toBeLessThanOrEqual(1_000);
  }
  expect(frames.flatMap((f) => f.sessions)).toEqual(sessions);
  expect(frames.flatMap((f) => f.resume ?? [])).toEqual(resume);
  expect(helloFrames([], [])).toEqual([{ action: "hello", sessions: [] }]);
});

it("registers more sessions than one hello frame holds", async () => {
  const sessions = Array.from({ length: 150 }, (_, i) => ({ session_id: `frames_many_${String(i).padStart(3, "0")}`, title: `agent:${"t".repeat(250)}` }));
  expect(bytes({ action: "hello", sessions })).toBeGreaterThan(FRAME_BYTES);
  await t.runner({ sessions });
  const human = await t.token("human");
  const listed: string[] = [];
  let cursor: string | null = null;
  do {
    const page: { body: { sessions: { session_id: string }[]; next_cursor: string | null } } = await t.http(human, "GET", `/v1/sessions?limit=200${cursor ? `&cursor=${cursor}` : ""}`);
    listed.push(...page.body.sessions.map((s) => s.session_id));
    cursor = page.body.next_cursor;
  } while (cursor);
  expect(listed.filter((id) => id.startsWith("frames_many_"))).toEqual(sessions.map((s) => s.session_id));
});
