/**
 * docs/openapi.json is what the generator makes, `GET /openapi.json` serves it, and real replies of
 * every call (each success and each error the document lists) and real WebSocket frames validate
 * against it with a standard JSON Schema 2020-12 validator.
 */
import { readFileSync } from "node:fs";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { functions } from "../functions/catalog.js";
import { openApiText } from "../functions/shared/openapi.js";
import { startTollgate, type Harness, type TestSocket } from "./support/tollgate.js";

const committed = readFileSync(new URL("../docs/openapi.json", import.meta.url), "utf8");
const doc = JSON.parse(committed);

const ajv = new Ajv2020({ allErrors: true, strictTypes: false });
addFormats.default(ajv);
// The document's own keywords are not JSON Schema: the validator skips them and resolves pointers into them.
ajv.addVocabulary(Object.keys(doc));
ajv.addSchema(doc, "tollgate");

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, "~0").replace(/\//g, "~1")).join("/");
const schemaAt = (...parts: string[]): ValidateFunction => {
  const validate = ajv.getSchema(`tollgate#/${pointer(...parts)}`);
  if (!validate) throw new Error(`no schema at ${parts.join(" ")}`);
  return validate as ValidateFunction;
};

function expectValid(validate: ValidateFunction, value: unknown, what: string) {
  expect(validate(value), `${what}: ${JSON.stringify(validate.errors)} in ${JSON.stringify(value)}`).toBe(true);
}

it("docs/openapi.json is what `npm run openapi` generates (run it after changing a schema or a route)", () => {
  expect(committed).toBe(openApiText());
});

it("describes every http route of the catalog, and nothing else", () => {
  const routes = Object.values(functions).flatMap((f) => (f.trigger.kind === "http" ? [`${f.trigger.method} ${f.trigger.path}`] : []));
  const described = Object.entries(doc.paths as Record<string, object>).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
  expect(described.sort()).toEqual(routes.sort());
  expect(doc.openapi).toBe("3.1.0");
});

describe("real replies and frames", () => {
  let t: Harness;
  const seen = new Set<string>();
  beforeAll(async () => {
    t = await startTollgate({ rateLimits: { raisesPerMinute: 4, verdictsPerMinute: 3 } });
  });
  afterAll(() => t?.stop());

  /** One real call, checked against the document's reply for its route and status. */
  async function hit(token: string | undefined, method: string, template: string, path: string, body?: unknown, on: Harness = t) {
    const reply = await on.http(token, method, path, body);
    seen.add(`${method} ${template} ${reply.status}`);
    const validate = schemaAt("paths", template, method.toLowerCase(), "responses", String(reply.status), "content", "application/json", "schema");
    expectValid(validate, reply.body, `${method} ${path} ${reply.status}`);
    return reply;
  }

  it("GET /openapi.json serves the committed document, with no token", async () => {
    const reply = await hit(undefined, "GET", "/openapi.json", "/openapi.json");
    expect(reply.status).toBe(200);
    expect(`${JSON.stringify(reply.body, null, 2)}\n`).toBe(committed);
  });

  it("every documented status of every call, produced for real, fits its schema", { timeout: 60_000 }, async () => {
    const runner = await t.token("runner");
    const other = await t.token("runner", "runner-2");
    const human = await t.token("human");
    const big = { title: "x".repeat(70 * 1024) };
    const S = "/v1/sessions/{id}";
    const E = "/v1/sessions/{id}/events";
    const raise = (id: string, message = `${id}?`) => ({ type: "response.elicitation_request", elicitation_id: id, params: { message } });

    await hit(undefined, "GET", "/healthz", "/healthz");
    // PUT /v1/sessions/{id}
    expect((await hit(runner, "PUT", S, "/v1/sessions/oa_parent", { title: "codex:parent" })).status).toBe(200);
    expect((await hit(runner, "PUT", S, "/v1/sessions/oa_child", { parent_session_id: "oa_parent" })).status).toBe(200);
    await hit(runner, "PUT", S, "/v1/sessions/oa_x", { title: 5 });
    await hit(undefined, "PUT", S, "/v1/sessions/oa_x", {});
    await hit(human, "PUT", S, "/v1/sessions/oa_x", {});
    await hit(runner, "PUT", S, "/v1/sessions/oa_x", { parent_session_id: "oa_missing" });
    await hit(runner, "PUT", S, "/v1/sessions/oa_child", { parent_session_id: "oa_child" });
    await hit(runner, "PUT", S, "/v1/sessions/oa_x", big);

    // POST /v1/sessions/{id}/events
    expect((await hit(runner, "POST", E, "/v1/sessions/oa_child/events", raise("oa_e1"))).status).toBe(201);
    expect((await hit(runner, "POST", E, "/v1/sessions/oa_child/events", raise("oa_e1"))).status).toBe(200);
    await hit(runner, "POST", E, "/v1/sessions/oa_child/events", raise("oa_e1", "other params"));
    await hit(runner, "POST", E, "/v1/sessions/oa_child/events", raise("oa_e2"));
    await hit(runner, "POST", E, "/v1/sessions/oa_child/events", { type: "nonsense" });
    await hit(undefined, "POST", E, "/v1/sessions/oa_child/events", raise("oa_e3"));
    await hit(human, "POST", E, "/v1/sessions/oa_child/events", raise("oa_e3"));
    await hit(runner, "POST", E, "/v1/sessions/oa_missing/events", raise("oa_e3"));
    await hit(runner, "POST", E, "/v1/sessions/oa_child/events", { ...raise("oa_e3"), pad: "x".repeat(70 * 1024) });
    const service = await t.token("service", "service-rl");
    for (let i = 0; i < 5; i++) await hit(service, "POST", E, "/v1/sessions/oa_child/events", raise(`oa_rl${i}`));

    // GET /v1/sessions, /v1/sessions/{id}, /peek, /v1/elicitations/{id} while oa_e1 and oa_e2 are pending
    const L = "/v1/sessions";
    expect((await hit(human, "GET", L, "/v1/sessions?limit=1")).body.next_cursor).toEqual(expect.any(String));
    await hit(human, "GET", L, "/v1/sessions?ids=oa_parent,oa_unknown");
    expect((await hit(human, "GET", L, "/v1/sessions?pending=true")).status).toBe(200);
    await hit(human, "GET", L, "/v1/sessions?limit=0");
    await hit(undefined, "GET", L, "/v1/sessions");
    await hit(runner, "GET", L, "/v1/sessions");
    for (const [template, path] of [
      [S, "/v1/sessions/oa_parent"],
      ["/v1/sessions/{id}/peek", "/v1/sessions/oa_child/peek"],
      ["/v1/elicitations/{id}", "/v1/elicitations/oa_e1"],
    ]) {
      const reader = template.endsWith("peek") ? runner : human;
      expect((await hit(reader, "GET", template, path)).status).toBe(200);
      await hit(reader, "GET", template, path.replace(/oa_\w+/, "bad%20id"));
      await hit(undefined, "GET", template, path);
      await hit(template.endsWith("peek") ? other : runner, "GET", template, path);
      await hit(reader, "GET", template, path.replace(/oa_\w+/, "oa_missing"));
    }

    // POST /v1/sessions/{id}/messages: held behind the pending approvals, then delivered or queued
    const M = "/v1/sessions/{id}/messages";
    expect((await hit(runner, "POST", M, "/v1/sessions/oa_child/messages", { text: "held" })).status).toBe(202);
    expect((await hit(runner, "POST", M, "/v1/sessions/oa_parent/messages", { text: "queued" })).status).toBe(200);
    await hit(runner, "POST", M, "/v1/sessions/oa_parent/messages", { text: "" });
    await hit(undefined, "POST", M, "/v1/sessions/oa_parent/messages", { text: "x" });
    await hit(human, "POST", M, "/v1/sessions/oa_parent/messages", { text: "x" });
    await hit(runner, "POST", M, "/v1/sessions/oa_missing/messages", { text: "x" });
    await hit(runner, "POST", M, "/v1/sessions/oa_parent/messages", { text: "x".repeat(70 * 1024) });

    // Verdicts: given, the same again, another (conflict with the standing verdict), given up; then a resolved read
    const approve = (action: string) => ({ type: "approval", elicitation_id: "oa_e1", action });
    expect((await hit(human, "POST", E, "/v1/sessions/oa_child/events", approve("accept"))).status).toBe(200);
    await hit(human, "POST", E, "/v1/sessions/oa_child/events", approve("accept"));
    expect((await hit(human, "POST", E, "/v1/sessions/oa_child/events", approve("decline"))).body.error.verdict.action).toBe("accept");
    await hit(runner, "POST", E, "/v1/sessions/oa_child/events", { type: "response.elicitation_resolved", elicitation_id: "oa_e2" });
    expect((await hit(human, "GET", "/v1/elicitations/{id}", "/v1/elicitations/oa_e1")).body.verdict.action).toBe("accept");

    // GET /v1/history: the decisions above, a refused query, no token, a runner; each JSON line is one entry
    const H = "/v1/history";
    const decided = await hit(human, "GET", H, "/v1/history?limit=1");
    expect(decided.body.items[0]).toMatchObject({ elicitation_id: "oa_e2", verdict: { via: "runner" } });
    expect((await hit(human, "GET", H, `/v1/history?session_id=oa_child&cursor=${encodeURIComponent(decided.body.next_cursor)}`)).body.items).toHaveLength(1);
    await hit(human, "GET", H, "/v1/history?since=yesterday");
    await hit(undefined, "GET", H, "/v1/history");
    await hit(runner, "GET", H, "/v1/history");
    const lines = await fetch(`${t.runtime.httpUrl}/v1/history?format=jsonl`, { headers: { authorization: `Bearer ${human}` } });
    expect(lines.headers.get("content-type")).toBe("application/x-ndjson");
    const entry = schemaAt("paths", H, "get", "responses", "200", "content", "application/x-ndjson", "itemSchema");
    const exported = (await lines.text()).split("\n").filter(Boolean);
    expect(exported).toHaveLength(2);
    for (const line of exported) expectValid(entry, JSON.parse(line), "a JSON line of GET /v1/history");
    // A page that is not the last names the next one in a header the document describes.
    const paged = await fetch(`${t.runtime.httpUrl}/v1/history?format=jsonl&limit=1`, { headers: { authorization: `Bearer ${human}` } });
    expectValid(schemaAt("paths", H, "get", "responses", "200", "headers", "x-next-cursor", "schema"), paged.headers.get("x-next-cursor"), "the x-next-cursor header");
    // A deployment that keeps no history
    const historyOff = await startTollgate({ settings: { TOLLGATE_HISTORY: "off" } });
    try {
      expect((await hit(await historyOff.token("human"), "GET", H, "/v1/history", undefined, historyOff)).status).toBe(404);
    } finally {
      await historyOff.stop();
    }

    // Approval links: shared, read, answered, refused
    const K = "/v1/elicitations/{id}/link";
    const V = "/v1/link/verdict";
    const links = [];
    const raiser = await t.token("service", "service-links");
    for (const id of ["oa_l1", "oa_l2", "oa_l3", "oa_l4"]) {
      await hit(raiser, "POST", E, "/v1/sessions/oa_parent/events", raise(id));
      links.push((await hit(human, "POST", K, `/v1/elicitations/${id}/link`, { for: "oa-link" })).body.token);
    }
    await hit(human, "POST", K, "/v1/elicitations/oa_l1/link", { for: 5 });
    await hit(undefined, "POST", K, "/v1/elicitations/oa_l1/link", {});
    await hit(runner, "POST", K, "/v1/elicitations/oa_l1/link", {});
    await hit(human, "POST", K, "/v1/elicitations/oa_missing/link", {});
    await hit(human, "POST", K, "/v1/elicitations/oa_l1/link", { for: "x".repeat(70 * 1024) });
    expect((await hit(links[0], "GET", "/v1/link", "/v1/link")).body.status).toBe("pending");
    await hit(human, "GET", "/v1/link", "/v1/link");
    expect((await hit(links[0], "POST", V, V, { action: "accept" })).status).toBe(200);
    await hit(links[0], "POST", V, V, { action: "decline" });
    await hit(links[0], "POST", V, V, { action: "maybe" });
    await hit(links[0], "POST", V, V, { action: "accept", message: "x".repeat(70 * 1024) });
    await hit(undefined, "POST", V, V, { action: "accept" });
    await hit(human, "POST", K, "/v1/elicitations/oa_l1/link", {});
    expect((await hit(links[0], "GET", "/v1/link", "/v1/link")).body.verdict.action).toBe("accept");
    // One `for` is one caller of the verdict limit (3 a minute here): the fourth is refused.
    for (const link of links.slice(1)) await hit(link, "POST", V, V, { action: "decline" });

    // POST /v1/sessions/{id}/cancel
    const C = "/v1/sessions/{id}/cancel";
    expect((await hit(runner, "POST", C, "/v1/sessions/oa_parent/cancel", { descendants: true })).status).toBe(200);
    await hit(runner, "POST", C, "/v1/sessions/oa_parent/cancel", { descendants: "yes" });
    await hit(undefined, "POST", C, "/v1/sessions/oa_parent/cancel", {});
    await hit(human, "POST", C, "/v1/sessions/oa_parent/cancel", {});
    await hit(runner, "POST", C, "/v1/sessions/oa_missing/cancel", {});
    await hit(runner, "POST", C, "/v1/sessions/oa_parent/cancel", { pad: "x".repeat(70 * 1024) });

    // Notification targets: created, changed, listed, read, rotated, deleted, and each refusal
    const T = "/v1/notification-targets/{id}";
    const hook = { kind: "webhook", url: "http://127.0.0.1:9/hook" };
    expect((await hit(service, "PUT", T, "/v1/notification-targets/oa_t", hook)).status).toBe(201);
    expect((await hit(service, "PUT", T, "/v1/notification-targets/oa_t", hook)).status).toBe(200);
    await hit(service, "PUT", T, "/v1/notification-targets/oa_t", { kind: "slack", url: hook.url });
    await hit(service, "PUT", T, "/v1/notification-targets/oa_t", { ...hook, url: "http://example.com/" });
    await hit(undefined, "PUT", T, "/v1/notification-targets/oa_t", hook);
    await hit(human, "PUT", T, "/v1/notification-targets/oa_t", hook);
    await hit(service, "PUT", T, "/v1/notification-targets/oa_t", { ...hook, pad: "x".repeat(70 * 1024) });
    expect((await hit(service, "GET", "/v1/notification-targets", "/v1/notification-targets")).body.targets).toHaveLength(1);
    await hit(undefined, "GET", "/v1/notification-targets", "/v1/notification-targets");
    await hit(human, "GET", "/v1/notification-targets", "/v1/notification-targets");
    await hit(service, "PUT", T, "/v1/notification-targets/oa_slack", { kind: "slack", url: hook.url });
    const R = "/v1/notification-targets/{id}/rotate";
    expect((await hit(service, "POST", R, "/v1/notification-targets/oa_t/rotate")).body.secret).toMatch(/^whsec_/);
    await hit(service, "POST", R, "/v1/notification-targets/oa_slack/rotate");
    for (const method of ["GET", "DELETE", "POST"]) {
      const template = method === "POST" ? R : T;
      const path = (id: string) => (method === "POST" ? `/v1/notification-targets/${id}/rotate` : `/v1/notification-targets/${id}`);
      await hit(service, method, template, path("bad%20id"));
      await hit(undefined, method, template, path("oa_t"));
      await hit(human, method, template, path("oa_t"));
      await hit(service, method, template, path("oa_missing"));
    }
    expect((await hit(service, "GET", T, "/v1/notification-targets/oa_t")).status).toBe(200);
    expect((await hit(service, "DELETE", T, "/v1/notification-targets/oa_t")).status).toBe(200);

    // Every status the document lists was produced above by a real call, and nothing it does not list.
    const documented = Object.entries(doc.paths as Record<string, Record<string, { responses: object }>>).flatMap(([path, ops]) =>
      Object.entries(ops).flatMap(([method, op]) => Object.keys(op.responses).map((status) => `${method.toUpperCase()} ${path} ${status}`)),
    );
    expect([...seen].sort()).toEqual(documented.sort());
  });

  it("every frame a client sends and every frame Tollgate sends fits the components' frame schemas", { timeout: 30_000 }, async () => {
    const clientFrame = schemaAt("components", "schemas", "ClientFrame");
    const serverFrame = schemaAt("components", "schemas", "ServerFrame");
    const sent: unknown[] = [];
    const send = (s: TestSocket, frame: Record<string, unknown>) => (sent.push({ ...frame, ref: "r" }), s.request(frame));
    const inbox = await t.socket(await t.token("human", "human-ws"));
    const runner = await t.socket(await t.token("runner", "runner-ws"));
    await send(inbox, { action: "subscribe", sessions: "*" });
    await send(runner, { action: "hello", sessions: [{ session_id: "oa_ws", title: "codex:ws" }] });
    await send(runner, { action: "ping" });
    await send(runner, { action: "elicit", session_id: "oa_ws", elicitation_id: "oa_ws1", params: { message: "ws?" }, timeout_seconds: 60 });
    await send(runner, { action: "elicit", session_id: "oa_ws", elicitation_id: "oa_ws2", params: { message: "ws two?" } });
    await send(runner, { action: "cancel", elicitation_id: "oa_ws2" });
    await send(runner, { action: "elicit", session_id: "oa_missing_ws", params: { message: "refused" } });
    // Its own human: every verdict counts against the token's limit (3 a minute here), and human-1 used its 3 above.
    const answered = await t.http(await t.token("human", "human-ws"), "POST", "/v1/sessions/oa_ws/events", {
      type: "approval",
      elicitation_id: "oa_ws1",
      action: "accept",
      content: { ok: true },
      message: "fine by me",
    });
    expect(answered.status).toBe(200);
    await t.http(await t.token("runner", "runner-ws"), "POST", "/v1/sessions/oa_ws/messages", { text: "after the verdict" });
    await runner.next((f) => f.type === "elicitation.verdict" && f.elicitation_id === "oa_ws1");
    await runner.next((f) => f.type === "session.message");
    await inbox.next((f) => f.type === "response.elicitation_resolved" && f.elicitation_id === "oa_ws1");
    await inbox.next((f) => f.type === "session.badge" && f.session_id === "oa_ws" && f.pending_elicitations_count === 0);

    for (const frame of sent) expectValid(clientFrame, frame, "client frame");
    const frames = [...runner.frames, ...inbox.frames];
    for (const frame of frames) expectValid(serverFrame, frame, "server frame");
    const described = doc.components.schemas.ServerFrame.oneOf.map((r: { $ref: string }) => doc.components.schemas[r.$ref.split("/").pop()!].properties.type.const);
    expect(new Set(frames.map((f) => f.type))).toEqual(new Set(described));
  });
});
