/**
 * Roles exactly as docs/protocol.md "Authentication and tenants" lists them. Every call, HTTP and WebSocket, is made with a
 * runner, a human and a service token: every forbidden pair is 403 `forbidden` and changes
 * nothing; every allowed pair works. In particular a runner cannot answer even its own
 * elicitation, and a human cannot raise one.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Role } from "../../functions/shared/schemas.js";
import { startTollgate, type Harness, type TestSocket } from "../support/tollgate.js";
import { PROTOCOL_CODES } from "./support.js";

const ROLES: Role[] = ["runner", "human", "service"];
const RUNNER: Role[] = ["runner", "service"];
const HUMAN: Role[] = ["human", "service"];

let t: Harness;
const tokens = {} as Record<Role, string>;
const sockets = {} as Record<Role, TestSocket>;
let owner: string; // the runner that registered every fixture session (the runner under test is this same sub)

type Outcome = { status: number; code?: string; body?: any };
interface Call {
  name: string;
  allowed: Role[];
  /** Whatever must exist before the call; may write. */
  prepare?: (role: Role, tag: string) => Promise<void>;
  run: (role: Role, tag: string) => Promise<Outcome>;
  /** What an allowed call answers, checked beyond its status. */
  check?: (outcome: Outcome, role: Role, tag: string) => void;
}

const http = async (role: Role, method: string, path: string, body?: unknown): Promise<Outcome> => {
  const reply = await t.http(tokens[role], method, path, body);
  return { status: reply.status, code: reply.body?.error?.code, body: reply.body };
};
const ws = async (role: Role, frame: Record<string, unknown>): Promise<Outcome> => {
  const reply = await sockets[role].request(frame);
  return reply.type === "error" ? { status: PROTOCOL_CODES[reply.code] ?? 500, code: reply.code, body: reply } : { status: 200, body: reply };
};
const session = (id: string, parent?: string) => t.http(owner, "PUT", `/v1/sessions/${id}`, parent ? { parent_session_id: parent } : {});
const raise = async (sessionId: string, id: string) => {
  const reply = await t.http(owner, "POST", `/v1/sessions/${sessionId}/events`, { type: "response.elicitation_request", elicitation_id: id, params: { message: `May I ${id}?` } });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
};

const calls: Call[] = [
  {
    name: "PUT /v1/sessions/{id}",
    allowed: RUNNER,
    run: (role, tag) => http(role, "PUT", "/v1/sessions/r_main", { title: `codex:${tag}` }),
    check: (o, _role, tag) => expect(o.body.title).toBe(`codex:${tag}`),
  },
  { name: "GET /v1/sessions", allowed: HUMAN, run: (role) => http(role, "GET", "/v1/sessions?limit=200"), check: (o) => expect(o.body.sessions.map((s: any) => s.session_id)).toContain("r_main") },
  { name: "GET /v1/sessions?ids=", allowed: HUMAN, run: (role) => http(role, "GET", "/v1/sessions?ids=r_main,r_none"), check: (o) => expect(o.body.sessions).toHaveLength(2) },
  {
    name: "GET /v1/sessions?pending=true",
    allowed: HUMAN,
    run: (role) => http(role, "GET", "/v1/sessions?pending=true"),
    check: (o) => expect(o.body.sessions.map((s: any) => s.session_id)).toContain("r_main"),
  },
  { name: "GET /v1/sessions/{id}", allowed: HUMAN, run: (role) => http(role, "GET", "/v1/sessions/r_main"), check: (o) => expect(o.body.pending_elicitations.length).toBeGreaterThan(0) },
  {
    name: "GET /v1/sessions/{id}/peek",
    allowed: ROLES,
    run: (role) => http(role, "GET", "/v1/sessions/r_main/peek"),
    check: (o) => expect(o.body.items).toContainEqual({ type: "pending_elicitation", elicitation_id: "el_main", prompt: "May I el_main?" }),
  },
  {
    name: "POST events: raise",
    allowed: RUNNER,
    run: (role, tag) => http(role, "POST", "/v1/sessions/r_main/events", { type: "response.elicitation_request", elicitation_id: `el_raise_${tag}`, params: { message: "May I?" } }),
    check: (o, _role, tag) => expect(o).toMatchObject({ status: 201, body: { elicitation_id: `el_raise_${tag}` } }),
  },
  {
    name: "POST events: approval (the runner's own elicitation, too)",
    allowed: HUMAN,
    prepare: (_role, tag) => raise("r_main", `el_answer_${tag}`),
    run: (role, tag) => http(role, "POST", "/v1/sessions/r_main/events", { type: "approval", elicitation_id: `el_answer_${tag}`, action: "accept" }),
    check: (o, _role, tag) => expect(o.body).toMatchObject({ elicitation_id: `el_answer_${tag}`, action: "accept", reason: "answered", status: "resolved" }),
  },
  {
    name: "POST events: runner gave up",
    allowed: RUNNER,
    prepare: (_role, tag) => raise("r_main", `el_gaveup_${tag}`),
    run: (role, tag) => http(role, "POST", "/v1/sessions/r_main/events", { type: "response.elicitation_resolved", elicitation_id: `el_gaveup_${tag}` }),
    check: (o, _role, tag) => expect(o.body).toEqual({ elicitation_id: `el_gaveup_${tag}`, status: "resolved" }),
  },
  { name: "GET /v1/elicitations/{id}", allowed: HUMAN, run: (role) => http(role, "GET", "/v1/elicitations/el_main"), check: (o) => expect(o.body.status).toBe("pending") },
  {
    name: "POST /v1/sessions/{id}/cancel",
    allowed: RUNNER,
    prepare: async (_role, tag) => {
      await session(`r_cancel_${tag}`);
      await raise(`r_cancel_${tag}`, `el_cancel_${tag}`);
    },
    run: (role, tag) => http(role, "POST", `/v1/sessions/r_cancel_${tag}/cancel`, {}),
    check: (o) => expect(o.body).toEqual({ cancelled: 1 }),
  },
  {
    name: "POST /v1/sessions/{id}/messages",
    allowed: RUNNER,
    prepare: (_role, tag) => session(`r_msg_${tag}`).then(() => undefined),
    run: (role, tag) => http(role, "POST", `/v1/sessions/r_msg_${tag}/messages`, { text: "hello" }),
    check: (o) => expect(o.body.status).toBe("queued"),
  },
  {
    name: "ws hello",
    allowed: RUNNER,
    run: (role, tag) => ws(role, { action: "hello", sessions: [{ session_id: `r_hello_${tag}` }] }),
    check: (o) => expect(o.body.type).toBe("hello.ok"),
  },
  {
    name: "ws elicit",
    allowed: RUNNER,
    run: (role, tag) => ws(role, { action: "elicit", session_id: "r_main", elicitation_id: `el_ws_${tag}`, params: { message: "May I?" } }),
    check: (o, _role, tag) => expect(o.body).toMatchObject({ type: "elicitation.parked", elicitation_id: `el_ws_${tag}` }),
  },
  {
    name: "ws cancel",
    allowed: RUNNER,
    prepare: (_role, tag) => raise("r_main", `el_wscancel_${tag}`),
    run: (role, tag) => ws(role, { action: "cancel", elicitation_id: `el_wscancel_${tag}` }),
    check: (o, _role, tag) => expect(o.body).toMatchObject({ type: "elicitation.verdict", elicitation_id: `el_wscancel_${tag}`, action: "cancel", reason: "cancelled" }),
  },
  { name: "ws subscribe", allowed: HUMAN, run: (role) => ws(role, { action: "subscribe", sessions: ["r_main"] }), check: (o) => expect(o.body.type).toBe("subscribed") },
  { name: "ws ping", allowed: ROLES, run: (role) => ws(role, { action: "ping" }), check: (o) => expect(o.body.type).toBe("pong") },
];

beforeAll(async () => {
  t = await startTollgate();
  owner = await t.token("runner", "owner");
  tokens.runner = owner;
  tokens.human = await t.token("human", "human-1");
  tokens.service = await t.token("service", "service-1");
  for (const role of ROLES) sockets[role] = await t.socket(tokens[role]);
  await session("r_main");
  await raise("r_main", "el_main");
});
afterAll(() => t?.stop());

describe("role x call", () => {
  it("covers every call of the protocol with every role", () => {
    expect(calls).toHaveLength(17);
    expect(calls.flatMap((c) => ROLES.map((r) => [c.name, r])).length).toBe(51);
  });

  it("every forbidden pair is 403 forbidden and changes nothing", async () => {
    const forbidden = calls.flatMap((call) => ROLES.filter((role) => !call.allowed.includes(role)).map((role) => ({ call, role, tag: `no_${role}` })));
    for (const { call, role, tag } of forbidden) await call.prepare?.(role, tag);
    const before = await t.quietScan();
    const results: Record<string, Outcome> = {};
    for (const { call, role, tag } of forbidden) {
      const { status, code } = await call.run(role, tag);
      results[`${call.name} as ${role}`] = { status, code };
    }
    expect(results).toEqual(Object.fromEntries(Object.keys(results).map((k) => [k, { status: 403, code: "forbidden" }])));
    expect(Object.keys(results)).toHaveLength(15);
    expect(await t.quietScan()).toEqual(before);
  });

  it("a refusal says in words what the role may not do, and which tokens may", async () => {
    const forbidden = calls.flatMap((call) => ROLES.filter((role) => !call.allowed.includes(role)).map((role) => ({ call, role, tag: `say_${role}` })));
    for (const { call, role, tag } of forbidden) {
      await call.prepare?.(role, tag);
      const { body } = await call.run(role, tag);
      const allowed = call.allowed.join(" or ");
      expect(body.error?.message ?? body.message, `${call.name} as ${role}`).toMatch(new RegExp(`^a ${role} token may not [a-z ,]+ \\(a ${allowed} token may\\)$`));
    }
  });

  it("every allowed pair works", async () => {
    const allowed = calls.flatMap((call) => call.allowed.map((role) => ({ call, role, tag: `ok_${role}` })));
    expect(allowed).toHaveLength(36);
    for (const { call, role, tag } of allowed) {
      await call.prepare?.(role, tag);
      const outcome = await call.run(role, tag);
      expect(outcome.status, `${call.name} as ${role}: ${JSON.stringify(outcome.body)}`).toBeLessThan(300);
      call.check?.(outcome, role, tag);
    }
  });
});
