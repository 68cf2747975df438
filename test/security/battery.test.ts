/**
 * A property-based battery of malformed requests. Well over 1,000 generated HTTP bodies,
 * query strings, path ids and WebSocket frames (wrong types, missing and unknown fields, huge
 * strings, deep nesting, unicode and lone surrogates in ids, `__proto__` and other prototype keys,
 * numbers DynamoDB cannot store), every one invalid by construction: each must be answered with a
 * error code of docs/protocol.md "Errors" (never a 500, never an internal detail), the runtime must stay up, every
 * socket open, and the table exactly as it was.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTollgate, type Harness, type TestSocket } from "../support/tollgate.js";
import { badIdString, deepText, exchange, hasRoute, mutatedBody, notAnErrorFrame, notAnObjectText, notAProtocolError, notTheGatewayNotFound, rawHttp, VALID_ID } from "./support.js";
import { bodyRoutes, encodePath, FRAME_LIMIT_BYTES, frameKinds } from "./malformed-inputs.js";

/** FC_SEED replays a run; FC_RUNS multiplies the number of runs (the default keeps the suite quick). */
const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined;
const runs = (n: number) => n * Number(process.env.FC_RUNS ?? 1);
const BATCH = 10;

let t: Harness;
let runner: string;
let human: string;
let service: string;
let runnerSockets: TestSocket[];
let humanSockets: TestSocket[];
let inbox: TestSocket;
let before: Record<string, unknown>[];
let sent = 0;

const form = {
  type: "object",
  properties: { answer: { type: "string", enum: ["yes", "no"] }, count: { type: "integer", minimum: 0, maximum: 10 } },
  required: ["answer"],
};

beforeAll(async () => {
  t = await startTollgate();
  runner = await t.token("runner", "fuzz-runner");
  human = await t.token("human", "fuzz-human");
  service = await t.token("service", "fuzz-service");
  // A small world to aim at: a parent and a child session, a pending elicitation with a strict form.
  const main = await t.socket(runner);
  const hello = await main.request({
    action: "hello",
    sessions: [
      { session_id: "conv_fuzz", title: "fuzz:root" },
      { session_id: "conv_fuzz_child", parent_session_id: "conv_fuzz" },
    ],
  });
  expect(hello.type).toBe("hello.ok");
  const parked = await main.request({ action: "elicit", session_id: "conv_fuzz_child", elicitation_id: "el_fuzz", params: { message: "Pick one", requestedSchema: form } });
  expect(parked.type).toBe("elicitation.parked");
  const free = await main.request({ action: "elicit", session_id: "conv_fuzz", elicitation_id: "el_free", params: { message: "Anything to add?" } });
  expect(free.type).toBe("elicitation.parked");
  runnerSockets = [main, ...(await Promise.all([1, 2, 3].map(() => t.socket(runner))))];
  humanSockets = await Promise.all([1, 2].map(() => t.socket(human)));
  inbox = await t.socket(human);
  expect((await inbox.request({ action: "subscribe", sessions: "*" })).type).toBe("subscribed");
  before = await t.quietScan();
  inbox.frames.length = 0;
});
afterAll(() => t?.stop());

// ---- HTTP ------------------------------------------------------------------------------------

interface HttpCase {
  token: string;
  method: string;
  path: string;
  body?: { raw: string } | { json: unknown };
}

async function refusedAll(cases: HttpCase[]): Promise<void> {
  const replies = await Promise.all(cases.map((c) => rawHttp(t, c.token, c.method, c.path, c.body)));
  sent += cases.length;
  replies.forEach((reply, i) => {
    const c = cases[i];
    const shown = c.body ? ("raw" in c.body ? c.body.raw : JSON.stringify(c.body.json)) : "";
    const problem = hasRoute(c.method, c.path) ? notAProtocolError(reply, `${decodeURIComponentSafe(c.path)} ${shown}`) : notTheGatewayNotFound(reply);
    expect(problem, `${c.method} ${c.path.slice(0, 120)} ${shown.slice(0, 300)}`).toBeUndefined();
  });
}

const decodeURIComponentSafe = (text: string) => {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
};

describe("HTTP", () => {
  for (const route of bodyRoutes) {
    it(`${route.name}: every malformed body is refused with a protocol error code`, async () => {
      const body = fc.oneof(
        { weight: 4, arbitrary: mutatedBody(route.template, route.fields).map((json) => ({ json }) as const) },
        { weight: 1, arbitrary: notAnObjectText(64 * 1024).map((raw) => ({ raw }) as const) },
        { weight: 1, arbitrary: deepText.map((deep) => ({ raw: JSON.stringify(route.template).replace(/}$/, `,"nested":${deep}}`) }) as const) },
      );
      await fc.assert(
        fc.asyncProperty(fc.array(body, { minLength: BATCH, maxLength: BATCH }), (bodies) =>
          refusedAll(bodies.map((b) => ({ token: { runner, human, service }[route.role], method: route.method, path: route.path, body: b }))),
        ),
        { numRuns: runs(12), seed: SEED },
      );
    });
  }

  it("every malformed path id is refused on every route that takes one", async () => {
    // Invalid ids everywhere; valid but unknown ids (guessing) on every route that cannot create.
    const guessed = fc.stringMatching(VALID_ID).filter((id) => !id.startsWith("conv_fuzz") && !["el_fuzz", "el_free"].includes(id));
    const calls = fc.oneof(
      badIdString.map((id) => ({ id, creates: true })),
      guessed.map((id) => ({ id, creates: false })),
    );
    const templates = Object.fromEntries(bodyRoutes.map((r) => [r.name, r]));
    const routeFor = (id: string, creates: boolean) => {
      const p = encodePath(id);
      const all: HttpCase[] = [
        { token: human, method: "GET", path: `/v1/sessions/${p}` },
        { token: human, method: "GET", path: `/v1/sessions/${p}/peek` },
        { token: human, method: "GET", path: `/v1/elicitations/${p}` },
        { token: runner, method: "POST", path: `/v1/sessions/${p}/events`, body: { json: templates["POST events (raise)"].template } },
        { token: human, method: "POST", path: `/v1/sessions/${p}/events`, body: { json: templates["POST events (approval)"].template } },
        { token: runner, method: "POST", path: `/v1/sessions/${p}/events`, body: { json: templates["POST events (runner gave up)"].template } },
        { token: service, method: "POST", path: `/v1/sessions/${p}/cancel`, body: { json: { descendants: true } } },
        { token: runner, method: "POST", path: `/v1/sessions/${p}/messages`, body: { json: { text: "hi" } } },
      ];
      return creates ? [...all, { token: runner, method: "PUT", path: `/v1/sessions/${p}`, body: { json: { title: "x" } } }] : all;
    };
    await fc.assert(
      fc.asyncProperty(fc.array(calls, { minLength: 2, maxLength: 2 }), (picked) => refusedAll(picked.flatMap(({ id, creates }) => routeFor(id, creates)))),
      { numRuns: runs(10), seed: SEED },
    );
  });

  it("every malformed query string of GET /v1/sessions is refused", async () => {
    const badLimit = fc.oneof(
      fc.constantFrom("0", "201", "-1", "1.5", "abc", "", "NaN", "Infinity", "1e400", "٣", "1,2", "true"),
      fc.integer({ min: 201 }).map(String),
      fc.integer({ max: 0 }).map(String),
    );
    const badIds = fc.oneof(
      // `ids` is split on commas and empty entries are skipped: at least one entry must stay invalid.
      fc
        .tuple(
          fc.array(fc.constantFrom("conv_fuzz", "conv_x"), { maxLength: 3 }),
          badIdString.filter((bad) => bad.split(",").some((part) => part !== "" && !VALID_ID.test(part))),
        )
        .map(([ok, bad]) => [...ok, bad].join(",")),
      fc.integer({ min: 101, max: 130 }).map((n) => Array.from({ length: n }, (_, i) => `s${i}`).join(",")),
      fc.constantFrom(",", ",,,", ""),
    );
    const badCursor = fc.oneof(
      fc.string({ unit: "grapheme", minLength: 1, maxLength: 80 }),
      fc.constantFrom(".", "..", "a.b", "a.b.c", "eyJhZnRlciI6ImNvbnZfZnV6eiJ9.", `eyJhZnRlciI6ImNvbnZfZnV6eiJ9.${"é".repeat(43)}`, `eyJhZnRlciI6ImNvbnZfZnV6eiJ9.${"A".repeat(43)}`),
      fc.integer({ min: 2_049, max: 3_000 }).map((n) => "c".repeat(n)),
    );
    const unknownKey = fc.oneof(
      fc.constantFrom("__proto__", "constructor", "prototype", "token", "Limit", "page", "hasOwnProperty"),
      fc.string({ minLength: 1, maxLength: 8 }).map((k) => `x${k}`),
    );
    const badPart = fc.oneof(
      badLimit.map((v) => ["limit", v] as const),
      badIds.map((v) => ["ids", v] as const),
      badCursor.map((v) => ["cursor", v] as const),
      fc
        .oneof(
          fc.string({ maxLength: 10 }).filter((v) => v !== "true" && v !== "false"),
          fc.constantFrom("TRUE", "1", "yes"),
        )
        .map((v) => ["pending", v] as const),
      fc.tuple(unknownKey, fc.string({ maxLength: 10 })),
    );
    const query = fc.array(badPart, { minLength: 1, maxLength: 3 }).map((parts) => parts.map(([k, v]) => `${encodeURIComponent(k)}=${encodePath(v)}`).join("&"));
    await fc.assert(
      fc.asyncProperty(fc.array(query, { minLength: BATCH, maxLength: BATCH }), (queries) =>
        refusedAll(queries.map((q, i) => ({ token: i % 2 ? human : service, method: "GET", path: `/v1/sessions?${q}` }))),
      ),
      { numRuns: runs(10), seed: SEED },
    );
  });
});

// ---- WebSocket -------------------------------------------------------------------------------

/** Send one over-size frame on a connection of its own: how it closed, and whether anything came back. */
async function sendTooBig(frame: string, token: string) {
  const socket = await t.socket(token);
  socket.send(frame);
  const { code } = await socket.closed;
  return { code, frames: socket.frames.length };
}

describe("WebSocket", () => {
  for (const kind of frameKinds) {
    it(`${kind.name}: every malformed frame gets a protocol error frame and the connection stays open; one over 32 KB closes it with 1009`, async () => {
      const sockets = kind.human ? humanSockets : [...runnerSockets, ...humanSockets];
      await fc.assert(
        fc.asyncProperty(fc.array(kind.frame, { minLength: BATCH, maxLength: BATCH }), async (all) => {
          const frames = all.filter((frame) => Buffer.byteLength(frame) <= FRAME_LIMIT_BYTES);
          for (const frame of all.filter((f) => Buffer.byteLength(f) > FRAME_LIMIT_BYTES)) {
            expect(await sendTooBig(frame, kind.human ? human : runner), frame.slice(0, 300)).toEqual({ code: 1009, frames: 0 });
            sent++;
          }
          const queues = sockets.map((socket, s) => frames.filter((_, i) => i % sockets.length === s).map((frame) => ({ socket, frame })));
          const replies = await Promise.all(
            queues.map(async (queue) => {
              const out: { frame: string; reply: any }[] = [];
              for (const { socket, frame } of queue) out.push({ frame, reply: await exchange(socket, frame) });
              return out;
            }),
          );
          sent += frames.length;
          for (const { frame, reply } of replies.flat()) expect(notAnErrorFrame(reply, frame), frame.slice(0, 300)).toBeUndefined();
        }),
        { numRuns: runs(8), seed: SEED },
      );
      for (const socket of sockets) expect((await socket.request({ action: "ping" })).type).toBe("pong");
    });
  }
});

describe("afterwards", () => {
  it("sent over 1,000 malformed inputs; the runtime is up, the table unchanged, nobody was told anything", async () => {
    expect(sent).toBeGreaterThanOrEqual(1_000);
    expect((await rawHttp(t, undefined, "GET", "/healthz")).status).toBe(200);
    // The connections opened for the over-size frames have rows of their own (written at $connect and $disconnect, never by a frame).
    const theirs = (item: Record<string, any>) => /#C#/.test(item.pk.S) && !before.some((b: any) => b.pk.S === item.pk.S);
    expect((await t.quietScan()).filter((item) => !theirs(item))).toEqual(before);
    expect(inbox.frames).toEqual([]);
    for (const socket of [...runnerSockets, ...humanSockets]) {
      expect(socket.frames.filter((f) => f.type !== "error" && f.type !== "pong" && f.type !== "hello.ok" && f.type !== "elicitation.parked")).toEqual([]);
    }
    // And the real thing still works: the pending elicitation takes a valid verdict.
    const verdict = await t.http(human, "POST", "/v1/sessions/conv_fuzz_child/events", { type: "approval", elicitation_id: "el_fuzz", action: "accept", content: { answer: "yes", count: 3 } });
    expect(verdict).toEqual({ status: 200, body: { elicitation_id: "el_fuzz", action: "accept", reason: "answered", resolved_by: "fuzz-human", resolved_at: expect.any(String), status: "resolved" } });
    const frame = await runnerSockets[0].next((f) => f.type === "elicitation.verdict" && f.elicitation_id === "el_fuzz");
    expect(frame).toMatchObject({ action: "accept", content: { answer: "yes", count: 3 }, reason: "answered" });
  });
});
