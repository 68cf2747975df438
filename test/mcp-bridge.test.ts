/**
 * The bridge between real MCP peers on the official SDK: a server's tool asks with `elicitInput`,
 * the client's elicitation end is Tollgate, and a human answers over HTTP.
 */
import type { ElicitRequest } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { VERDICT_META } from "../sdk/mcp.js";
import { answer, mcpPeers, pendingIn, type Peers } from "./support/mcp.js";
import { startTollgate, type Harness } from "./support/tollgate.js";

type FormParams = Extract<ElicitRequest["params"], { requestedSchema: unknown }>;
type Schema = FormParams["requestedSchema"];

let t: Harness;
let human: string;
let peers: Peers;
const SESSION = "mcp_bridge";
beforeAll(async () => {
  t = await startTollgate();
  human = await t.token("human");
  peers = await mcpPeers(await t.runner({ sessions: [{ session_id: SESSION }] }), SESSION);
}, 60_000);
afterAll(async () => {
  await peers?.close();
  await t?.stop();
});

const form = (properties: Schema["properties"], required = Object.keys(properties)): FormParams => ({ message: "Fill this in", requestedSchema: { type: "object", properties, required } });

const KINDS: [string, Schema["properties"], Record<string, unknown>][] = [
  ["text with length", { note: { type: "string", title: "Note", description: "why", minLength: 2, maxLength: 20, default: "ok" } }, { note: "ship it" }],
  ["email", { to: { type: "string", format: "email" } }, { to: "ops@example.com" }],
  ["uri", { link: { type: "string", format: "uri" } }, { link: "https://example.com/runbook" }],
  ["date", { day: { type: "string", format: "date" } }, { day: "2026-12-24" }],
  ["date-time", { at: { type: "string", format: "date-time" } }, { at: "2026-12-24T18:00:00+01:00" }],
  ["number", { ratio: { type: "number", minimum: 0, maximum: 1, default: 0.5 } }, { ratio: 0.25 }],
  ["integer", { replicas: { type: "integer", minimum: 1, maximum: 9 } }, { replicas: 3 }],
  ["boolean", { force: { type: "boolean", default: false } }, { force: true }],
  ["untitled single select", { env: { type: "string", enum: ["dev", "prod"], default: "dev" } }, { env: "prod" }],
  [
    "titled single select",
    {
      env: {
        type: "string",
        oneOf: [
          { const: "dev", title: "Development" },
          { const: "prod", title: "Production" },
        ],
      },
    },
    { env: "dev" },
  ],
  ["legacy enumNames", { env: { type: "string", enum: ["dev", "prod"], enumNames: ["Development", "Production"] } }, { env: "prod" }],
  ["untitled multi-select", { tags: { type: "array", items: { type: "string", enum: ["a", "b", "c"] }, minItems: 1, maxItems: 2 } }, { tags: ["a", "c"] }],
  [
    "titled multi-select",
    {
      tags: {
        type: "array",
        items: {
          anyOf: [
            { const: "a", title: "Alpha" },
            { const: "b", title: "Beta" },
          ],
        },
        default: ["a"],
      },
    },
    { tags: ["b"] },
  ],
];

it.each(KINDS)("a %s field: the server's tool receives exactly the content the human gave", async (_kind, properties, content) => {
  const before = peers.received.length;
  const asked = peers.ask(form(properties));
  const id = await pendingIn(t, human, SESSION);
  expect((await answer(t, human, SESSION, id, { action: "accept", content })).status).toBe(200);
  const result = await asked;
  expect(result).toMatchObject({ action: "accept", content });
  expect(peers.received.slice(before)).toHaveLength(1);
  expect(peers.received[before].content).toEqual(content);
  expect(peers.received[before]._meta?.[VERDICT_META]).toEqual({ elicitation_id: id, reason: "answered" });
});

it("the human's message with a verdict reaches the server in the result's _meta", async () => {
  const asked = peers.ask(form({ ok: { type: "boolean" } }));
  const id = await pendingIn(t, human, SESSION);
  await answer(t, human, SESSION, id, { action: "decline", message: "Wait for the freeze to end." });
  expect((await asked)._meta?.[VERDICT_META]).toEqual({ elicitation_id: id, reason: "answered", message: "Wait for the freeze to end." });
});

it("a decline and a cancel reach the server as they were given", async () => {
  for (const action of ["decline", "cancel"] as const) {
    const asked = peers.ask(form({ ok: { type: "boolean" } }));
    const id = await pendingIn(t, human, SESSION);
    await answer(t, human, SESSION, id, { action });
    const result = await asked;
    expect(result.action).toBe(action);
    expect(result.content).toBeUndefined();
  }
});

it("content that breaks the form is refused by Tollgate and never reaches the server", async () => {
  const before = peers.received.length;
  const asked = peers.ask(form({ tags: { type: "array", items: { type: "string", enum: ["a", "b", "c"] }, maxItems: 2 }, to: { type: "string", format: "email" } }));
  const id = await pendingIn(t, human, SESSION);
  const tooMany = await answer(t, human, SESSION, id, { action: "accept", content: { tags: ["a", "b", "c"], to: "ops@example.com" } });
  expect(tooMany.status).toBe(400);
  expect(tooMany.body.error).toMatchObject({ code: "bad_request", message: "content does not fit requestedSchema: tags: must pick at most 2" });
  const notAnEmail = await answer(t, human, SESSION, id, { action: "accept", content: { tags: ["a"], to: "not an address" } });
  expect(notAnEmail.body.error.message).toContain("to:");
  expect(peers.received.length).toBe(before);
  expect((await t.http(human, "GET", `/v1/elicitations/${id}`)).body.status).toBe("pending");
  await answer(t, human, SESSION, id, { action: "accept", content: { tags: ["b"], to: "ops@example.com" } });
  expect(await asked).toMatchObject({ action: "accept", content: { tags: ["b"], to: "ops@example.com" } });
});

it("a form Tollgate cannot ask is an InvalidParams error to the server, naming why", async () => {
  const bad = form({ env: { type: "string", enum: ["dev", "dev"] } });
  const reply = await peers.client.callTool({ name: "ask", arguments: { params: bad } });
  expect(reply.isError).toBe(true);
  expect(JSON.stringify(reply.content)).toContain("Tollgate refused the elicitation");
  expect(JSON.stringify(reply.content)).toContain("choices must not repeat");
});

it("a wait far longer than the client's and the server's short timeouts still returns the human's answer", async () => {
  const waits = { timeout: 2_000, resetTimeoutOnProgress: true, maxTotalTimeout: 120_000 };
  const runner = await t.runner({ sessions: [{ session_id: "mcp_slow" }] });
  const slow = await mcpPeers(runner, "mcp_slow", waits, { progressEveryMs: 200 });
  try {
    const asked = slow.ask(form({ ok: { type: "boolean" } }), waits);
    const id = await pendingIn(t, human, "mcp_slow");
    await new Promise((done) => setTimeout(done, 3 * waits.timeout)); // the human takes three timeouts to answer
    expect((await t.http(human, "GET", `/v1/elicitations/${id}`)).body.status).toBe("pending");
    await answer(t, human, "mcp_slow", id, { action: "accept", content: { ok: true } });
    expect(await asked).toMatchObject({ action: "accept", content: { ok: true } });
  } finally {
    await slow.close();
  }
}, 60_000);

it("a server that does not reset its timeout on progress gives up, and the human's card closes with it", async () => {
  const runner = await t.runner({ sessions: [{ session_id: "mcp_cut" }] });
  const cut = await mcpPeers(runner, "mcp_cut", { timeout: 2_000 }, { progressEveryMs: 200 });
  try {
    // SDK 1.32.2 never cancels its request id 0 (its cancel handler skips a falsy requestId): ask second.
    await cut.server.server.ping();
    const called = cut.client.callTool({ name: "ask", arguments: { params: form({ ok: { type: "boolean" } }) } });
    const id = await pendingIn(t, human, "mcp_cut");
    const reply = await called;
    expect(reply.isError).toBe(true);
    expect(JSON.stringify(reply.content)).toMatch(/timed out/i);
    await expect
      .poll(async () => (await t.http(human, "GET", `/v1/elicitations/${id}`)).body.verdict, { timeout: 20_000 })
      .toMatchObject({ action: "cancel", reason: "cancelled", resolved_by: "runner-1" });
  } finally {
    await cut.close();
  }
}, 60_000);

it("a deadline reaches the server as cancel, never as a human's decline", async () => {
  const runner = await t.runner({ sessions: [{ session_id: "mcp_deadline" }] });
  const late = await mcpPeers(runner, "mcp_deadline", {}, { timeoutSeconds: 1 });
  try {
    const result = await late.ask(form({ ok: { type: "boolean" } }));
    expect(result.action).toBe("cancel");
    expect(result._meta?.[VERDICT_META]).toMatchObject({ reason: "timeout" });
  } finally {
    await late.close();
  }
}, 60_000);
