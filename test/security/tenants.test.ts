/**
 * Tenants are sealed and sessions cannot be hijacked.
 * - Tenant B (any role, the same `sub` included) cannot read, answer, cancel, message, raise in,
 *   subscribe to or peek at tenant A's sessions and elicitations, by id guessing included: it
 *   gets `not_found` exactly as for an id that exists nowhere, and nothing changes.
 * - The same ids in two tenants are two separate things.
 * - Within a tenant, a runner token of another `sub` cannot bind, raise in, cancel, peek at or
 *   resume another runner's session or elicitation (`forbidden`); a service token may bind it.
 * - A runner connection receives frames only for what it registered; a subscriber only its tenant's.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, sleep, startTollgate, type Harness, type TestSocket } from "../support/tollgate.js";

let t: Harness;
const A = { runner: "", human: "", service: "" };
const B = { runner: "", human: "", service: "" };
let aRunner: TestSocket;
let aInbox: TestSocket;
let bInbox: TestSocket;

beforeAll(async () => {
  t = await startTollgate();
  // The same subs in both tenants: a sub means nothing outside its tenant.
  A.runner = await t.token("runner", "agent-1", "acme");
  A.human = await t.token("human", "alice", "acme");
  A.service = await t.token("service", "platform", "acme");
  B.runner = await t.token("runner", "agent-1", "globex");
  B.human = await t.token("human", "alice", "globex");
  B.service = await t.token("service", "platform", "globex");
  aRunner = await t.socket(A.runner);
  expect(
    (
      await aRunner.request({
        action: "hello",
        sessions: [{ session_id: "conv_a", title: "codex:secret-project" }, { session_id: "conv_a_child", parent_session_id: "conv_a" }, { session_id: "shared_id" }],
      })
    ).type,
  ).toBe("hello.ok");
  for (const [session, id] of [
    ["conv_a_child", "el_a"],
    ["shared_id", "el_shared"],
    ["conv_a", "el_a_top"],
  ]) {
    const parked = await aRunner.request({ action: "elicit", session_id: session, elicitation_id: id, params: { message: `A asks: ${id}?` } });
    expect(parked.type).toBe("elicitation.parked");
  }
  aInbox = await t.socket(A.human);
  bInbox = await t.socket(B.human);
  expect((await aInbox.request({ action: "subscribe", sessions: "*" })).type).toBe("subscribed");
  expect((await bInbox.request({ action: "subscribe", sessions: "*" })).type).toBe("subscribed");
});
afterAll(() => t?.stop());

const aIds = { sessions: ["conv_a", "conv_a_child", "shared_id"], elicitations: ["el_a", "el_shared", "el_a_top"] };

/** Every call of tenant B that names session `s` / elicitation `e`, with the role that may make it. */
function probes(s: string, e: string): [string, string, string, unknown?][] {
  return [
    [B.human, "GET", `/v1/sessions/${s}`],
    [B.service, "GET", `/v1/sessions/${s}`],
    [B.runner, "GET", `/v1/sessions/${s}/peek`],
    [B.human, "GET", `/v1/sessions/${s}/peek`],
    [B.human, "GET", `/v1/elicitations/${e}`],
    [B.human, "POST", `/v1/sessions/${s}/events`, { type: "approval", elicitation_id: e, action: "accept" }],
    [B.service, "POST", `/v1/sessions/${s}/events`, { type: "approval", elicitation_id: e, action: "decline" }],
    [B.runner, "POST", `/v1/sessions/${s}/events`, { type: "response.elicitation_resolved", elicitation_id: e }],
    [B.runner, "POST", `/v1/sessions/${s}/events`, { type: "response.elicitation_request", elicitation_id: "el_b_probe", params: { message: "B asks?" } }],
    [B.runner, "POST", `/v1/sessions/${s}/cancel`, { descendants: true }],
    [B.service, "POST", `/v1/sessions/${s}/cancel`, {}],
    [B.runner, "POST", `/v1/sessions/${s}/messages`, { text: "B was here" }],
    [B.runner, "PUT", "/v1/sessions/conv_b_probe", { parent_session_id: s }],
  ];
}

describe("tenant B and tenant A's things", () => {
  it("every call on A's ids answers not_found, exactly as for ids that exist nowhere, and changes nothing", async () => {
    const before = await t.quietScan();
    const ghost = await Promise.all(probes("conv_ghost", "el_ghost").map(([token, method, path, body]) => t.http(token, method, path, body)));
    for (const reply of ghost) expect(reply.status).toBe(404);
    for (const [i, s] of aIds.sessions.entries()) {
      const replies = await Promise.all(probes(s, aIds.elicitations[i]).map(([token, method, path, body]) => t.http(token, method, path, body)));
      // The same status and the same body as for the ghost: not even the message tells them apart.
      expect(replies, s).toEqual(ghost);
    }
    expect(await t.quietScan()).toEqual(before);
  });

  it("lists, id lookups and the pending view show nothing of A", async () => {
    for (const token of [B.human, B.service]) {
      const listed = await t.http(token, "GET", "/v1/sessions?limit=200");
      expect(listed.body.sessions.map((s: any) => s.session_id)).not.toContain("conv_a");
      const pending = await t.http(token, "GET", "/v1/sessions?pending=true");
      expect(pending.body.sessions.map((s: any) => s.session_id)).not.toContain("conv_a");
      const looked = await t.http(token, "GET", "/v1/sessions?ids=conv_a,conv_a_child");
      expect(looked.body.sessions).toEqual(
        ["conv_a", "conv_a_child"].map((id) => ({
          session_id: id,
          parent_session_id: null,
          title: null,
          pending_elicitations_count: 0,
          pending_elicitation_ids: [],
          awaiting_approval: false,
          updated_at: null,
        })),
      );
    }
  });

  it("cannot subscribe to A's sessions, raise, cancel or resume in them over the WebSocket", async () => {
    const before = await t.quietScan();
    const bHumanSocket = await t.socket(B.human);
    const bRunnerSocket = await t.socket(B.runner);
    const bServiceSocket = await t.socket(B.service);
    const afterConnect = await t.quietScan();
    for (const socket of [bHumanSocket, bServiceSocket]) {
      expect(await socket.request({ action: "subscribe", sessions: ["conv_a"] })).toMatchObject({ type: "error", code: "not_found" });
    }
    for (const socket of [bRunnerSocket, bServiceSocket]) {
      expect(await socket.request({ action: "elicit", session_id: "conv_a", elicitation_id: "el_b_ws", params: { message: "B asks?" } })).toMatchObject({ type: "error", code: "not_found" });
      expect(await socket.request({ action: "cancel", elicitation_id: "el_a" })).toMatchObject({ type: "error", code: "not_found" });
      expect((await socket.request({ action: "hello", sessions: [], resume: aIds.elicitations })).type).toBe("hello.ok");
    }
    expect(await t.quietScan()).toEqual(afterConnect);
    expect(afterConnect.length).toBe(before.length + 3); // the three connection items, in tenant B's keys
    for (const item of afterConnect.filter((i) => !before.some((b) => JSON.stringify(b) === JSON.stringify(i)))) {
      expect((item as any).pk.S).toMatch(/^T#globex#C#/);
    }
    // A's elicitation resolves: B's sockets, bound to nothing of A, hear nothing of it.
    const answer = await t.http(A.human, "POST", "/v1/sessions/conv_a/events", { type: "approval", elicitation_id: "el_a_top", action: "accept" });
    expect(answer.status).toBe(200);
    await aRunner.next((f) => f.type === "elicitation.verdict" && f.elicitation_id === "el_a_top");
    await eventually(() => expect(aInbox.count((f) => f.type === "response.elicitation_resolved" && f.elicitation_id === "el_a_top")).toBe(1));
    await sleep(300);
    for (const socket of [bHumanSocket, bRunnerSocket, bServiceSocket, bInbox]) {
      expect(JSON.stringify(socket.frames)).not.toMatch(/conv_a|el_a|A asks|secret-project/);
    }
  });

  it("id guessing: 200 generated ids, A's real ones among them, all answer exactly like a missing id", { timeout: 120_000 }, async () => {
    const guesses = fc.sample(fc.oneof(fc.stringMatching(/^(conv|el)_[a-z_]{1,12}$/), fc.constantFrom(...aIds.sessions, ...aIds.elicitations, "CONV_A", "conv_a ", "el_a.", "conv_a_child:")), {
      numRuns: 200,
      seed: 7,
    });
    const before = await t.quietScan();
    const notFound = (what: string) => ({ status: 404, body: { error: { code: "not_found", message: `${what} not found` } } });
    const sessionIs = (id: string) => (/^[A-Za-z0-9_.:-]{1,128}$/.test(id) ? notFound("session") : { status: 400 });
    for (let i = 0; i < guesses.length; i += 25) {
      await Promise.all(
        guesses.slice(i, i + 25).map(async (id) => {
          const p = encodeURIComponent(id);
          const [session, elicitation, answer] = await Promise.all([
            t.http(B.service, "GET", `/v1/sessions/${p}`),
            t.http(B.service, "GET", `/v1/elicitations/${p}`),
            t.http(B.service, "POST", `/v1/sessions/conv_a_child/events`, { type: "approval", elicitation_id: id, action: "accept" }),
          ]);
          expect(session.status === 404 ? session : { status: session.status }, id).toEqual(sessionIs(id));
          if (sessionIs(id).status === 404) {
            expect(elicitation, id).toEqual(notFound("elicitation"));
            expect(answer, id).toEqual(notFound("elicitation"));
          }
        }),
      );
    }
    expect(await t.quietScan()).toEqual(before);
  });
});

describe("the same ids in two tenants", () => {
  it("are two separate sessions and elicitations; neither tenant sees or moves the other's", async () => {
    const bRunner = await t.socket(B.runner);
    expect((await bRunner.request({ action: "hello", sessions: [{ session_id: "shared_id", title: "globex:own" }] })).type).toBe("hello.ok");
    // The same elicitation id as A's, in B's own session of the same id: created, not a conflict.
    const parked = await bRunner.request({ action: "elicit", session_id: "shared_id", elicitation_id: "el_shared", params: { message: "B asks: own?" } });
    expect(parked.type).toBe("elicitation.parked");
    const bView = await t.http(B.human, "GET", "/v1/sessions/shared_id");
    expect(bView.body).toMatchObject({ title: "globex:own", pending_elicitations_count: 1 });
    expect(bView.body.pending_elicitations.map((e: any) => e.params.message)).toEqual(["B asks: own?"]);
    const aView = await t.http(A.human, "GET", "/v1/sessions/shared_id");
    expect(aView.body.pending_elicitations.map((e: any) => e.params.message)).toEqual(["A asks: el_shared?"]);

    expect((await t.http(B.human, "POST", "/v1/sessions/shared_id/events", { type: "approval", elicitation_id: "el_shared", action: "decline" })).status).toBe(200);
    const bVerdict = await bRunner.next((f) => f.type === "elicitation.verdict" && f.elicitation_id === "el_shared");
    expect(bVerdict).toMatchObject({ action: "decline", reason: "answered" });
    expect((await t.http(A.human, "GET", "/v1/elicitations/el_shared")).body.status).toBe("pending");
    await eventually(() => expect(bInbox.count((f) => f.type === "response.elicitation_resolved" && f.elicitation_id === "el_shared")).toBe(1));
    await sleep(300);
    expect(aRunner.count((f) => f.elicitation_id === "el_shared" && f.type === "elicitation.verdict")).toBe(0);
    expect(aInbox.count((f) => f.type === "response.elicitation_resolved" && f.elicitation_id === "el_shared")).toBe(0);
    expect(JSON.stringify(aInbox.frames)).not.toContain("B asks");
    expect(JSON.stringify(bInbox.frames)).not.toMatch(/A asks|secret-project/);
  });
});

describe("within a tenant: another runner's session", () => {
  let mallory: string;
  let m: TestSocket;

  beforeAll(async () => {
    mallory = await t.token("runner", "mallory", "acme");
    m = await t.socket(mallory);
    expect((await m.request({ action: "hello", sessions: [{ session_id: "conv_m" }] })).type).toBe("hello.ok");
  });

  it("cannot be bound, raised in, cancelled, peeked at or resumed by a runner of another sub", async () => {
    const before = await t.quietScan();
    expect(await m.request({ action: "hello", sessions: [{ session_id: "conv_a" }] })).toMatchObject({ type: "error", code: "forbidden" });
    expect(await m.request({ action: "hello", sessions: [{ session_id: "conv_a_child", parent_session_id: "conv_a" }] })).toMatchObject({ type: "error", code: "forbidden" });
    expect(await m.request({ action: "elicit", session_id: "conv_a", elicitation_id: "el_m_in_a", params: { message: "hijack?" } })).toMatchObject({ type: "error", code: "forbidden" });
    expect(await m.request({ action: "cancel", elicitation_id: "el_a" })).toMatchObject({ type: "error", code: "forbidden" });
    for (const [method, path, body] of [
      ["PUT", "/v1/sessions/conv_a", { title: "mine now" }],
      ["GET", "/v1/sessions/conv_a/peek"],
      ["POST", "/v1/sessions/conv_a_child/events", { type: "response.elicitation_resolved", elicitation_id: "el_a" }],
      ["POST", "/v1/sessions/conv_a_child/events", { type: "response.elicitation_request", elicitation_id: "el_m_http", params: { message: "hijack?" } }],
      ["POST", "/v1/sessions/conv_a/cancel", { descendants: true }],
      ["POST", "/v1/sessions/conv_a/events", { type: "approval", elicitation_id: "el_a", action: "accept" }],
    ] as const) {
      const reply = await t.http(mallory, method, path, body);
      expect(reply.status, `${method} ${path}`).toBe(403);
    }
    // Resuming A's elicitation binds nothing: hello.ok, and no verdict ever comes to mallory.
    expect((await m.request({ action: "hello", sessions: [], resume: ["el_a"] })).type).toBe("hello.ok");
    expect(await t.quietScan()).toEqual(before);

    // A message to A's session still reaches A's runner, not mallory.
    expect((await t.http(A.service, "POST", "/v1/sessions/conv_a/messages", { text: "for A only" })).body.status).toBe("delivered");
    await aRunner.next((f) => f.type === "session.message" && f.text === "for A only");
    // A's elicitation, answered, goes to A's runner only.
    expect((await t.http(A.human, "POST", "/v1/sessions/conv_a_child/events", { type: "approval", elicitation_id: "el_a", action: "accept" })).status).toBe(200);
    await aRunner.next((f) => f.type === "elicitation.verdict" && f.elicitation_id === "el_a");
    await sleep(300);
    expect(JSON.stringify(m.frames)).not.toMatch(/conv_a|el_a|shared_id|for A only|A asks/);
  });

  it("a runner hears only its own sessions: verdicts, messages and notices of the other go to the other", async () => {
    expect((await m.request({ action: "elicit", session_id: "conv_m", elicitation_id: "el_m", params: { message: "mallory asks?" } })).type).toBe("elicitation.parked");
    expect((await aRunner.request({ action: "elicit", session_id: "shared_id", elicitation_id: "el_a2", params: { message: "A asks: again?" } })).type).toBe("elicitation.parked");
    for (const id of ["el_m", "el_a2"]) {
      const session = id === "el_m" ? "conv_m" : "shared_id";
      expect((await t.http(A.human, "POST", `/v1/sessions/${session}/events`, { type: "approval", elicitation_id: id, action: "accept" })).status).toBe(200);
    }
    await m.next((f) => f.type === "elicitation.verdict" && f.elicitation_id === "el_m");
    await aRunner.next((f) => f.type === "elicitation.verdict" && f.elicitation_id === "el_a2");
    await t.http(A.service, "POST", "/v1/sessions/conv_m/messages", { text: "for mallory" });
    await m.next((f) => f.type === "session.message" && f.text === "for mallory");
    await sleep(300);
    expect(aRunner.count((f) => f.elicitation_id === "el_m" || f.text === "for mallory")).toBe(0);
    expect(m.count((f) => f.elicitation_id === "el_a2")).toBe(0);
    // Runners are not subscribers: no request, resolved or badge event reaches a runner socket.
    for (const socket of [aRunner, m]) expect(socket.count((f) => f.type?.startsWith("response.") || f.type === "session.badge")).toBe(0);
  });

  it("a service token may re-bind another runner's session (and then receives its messages)", async () => {
    const platform = await t.socket(A.service);
    expect((await platform.request({ action: "hello", sessions: [{ session_id: "conv_m" }] })).type).toBe("hello.ok");
    expect((await t.http(A.service, "POST", "/v1/sessions/conv_m/messages", { text: "to the new binding" })).body.status).toBe("delivered");
    await platform.next((f) => f.type === "session.message" && f.text === "to the new binding");
    await sleep(200);
    expect(m.count((f) => f.text === "to the new binding")).toBe(0);
  });
});
