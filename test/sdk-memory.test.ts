/** A runner that lives for weeks holds nothing per verdict and a bounded window of message ids. */
import { afterAll, beforeAll, expect, it } from "vitest";
import { RecentIds } from "../sdk/recent.js";
import type { SessionMessage } from "../sdk/runner.js";
import { startTollgate, type Harness } from "./support/tollgate.js";

/** The machine may be busy: allow views that follow a write some seconds. */
const POLL = { timeout: 15_000 };
let t: Harness;
beforeAll(async () => {
  t = await startTollgate();
});
afterAll(() => t?.stop());

it("remembers at most its capacity of ids, forgets the oldest first and drops a repeat it remembers", () => {
  const recent = new RecentIds(3);
  expect(["a", "b", "c", "a"].map((id) => recent.add(id))).toEqual([true, true, true, false]);
  expect(recent.add("d")).toBe(true); // "a" is forgotten
  expect(recent.size).toBe(3);
  expect(recent.add("b")).toBe(false);
  expect(recent.add("a")).toBe(true);
  for (let i = 0; i < 10_000; i++) recent.add(`m${i}`);
  expect(recent.size).toBe(3);
  expect(() => new RecentIds(0)).toThrow(RangeError);
});

it("hands over every message once while remembering only the last few ids, and keeps nothing of answered waits", async () => {
  const received: SessionMessage[] = [];
  const runner = await t.runner({ sessions: [{ session_id: "mem_s" }], rememberMessages: 10, onMessage: (m) => received.push(m) });
  const service = await t.token("service");
  for (let i = 0; i < 40; i++) expect((await t.http(service, "POST", "/v1/sessions/mem_s/messages", { text: `m${i}` })).body.status).toBe("delivered");
  await expect.poll(() => received.length, POLL).toBe(40);
  expect(received.map((m) => m.text)).toEqual(Array.from({ length: 40 }, (_, i) => `m${i}`));
  expect(runner.footprint.rememberedMessages).toBe(10);

  const human = await t.token("human");
  for (let i = 0; i < 12; i++) {
    const id = `mem_el_${i}`;
    const wait = runner.elicit({ sessionId: "mem_s", elicitationId: id, params: { message: `approve ${i}?` } });
    await expect.poll(async () => (await t.http(human, "GET", `/v1/elicitations/${id}`)).body?.status, POLL).toBe("pending");
    await t.http(human, "POST", "/v1/sessions/mem_s/events", { type: "approval", elicitation_id: id, action: i % 2 ? "accept" : "decline" });
    await expect(wait).resolves.toMatchObject({ elicitation_id: id, reason: "answered" });
  }
  expect(runner.footprint).toEqual({ waits: 0, replies: 0, rememberedMessages: 10 });
}, 120_000);
