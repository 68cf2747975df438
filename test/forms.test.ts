/**
 * The MCP 2025-11-25 form grammar and URL mode on the server: every field kind is accepted at raise,
 * accepted content must fit the form (a `bad_request` that names the field, nothing changed), an
 * incoherent form is refused at raise, and URL mode carries its address to the human, consent only.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTollgate, type Harness } from "./support/tollgate.js";

let t: Harness;
let runner: string;
let human: string;

beforeAll(async () => {
  t = await startTollgate();
  runner = await t.token("runner", "runner-1");
  human = await t.token("human", "human-1");
  expect((await t.http(runner, "PUT", "/v1/sessions/forms_s", { title: "Forms" })).status).toBe(200);
});
afterAll(() => t?.stop());

/** Every kind of field the grammar has, with the bounds, formats and defaults each may carry. */
const everyKind = {
  type: "object",
  properties: {
    name: { type: "string", title: "Name", description: "As on the badge", minLength: 2, maxLength: 12, default: "Ada" },
    email: { type: "string", format: "email" },
    homepage: { type: "string", format: "uri" },
    day: { type: "string", format: "date", default: "2026-12-24" },
    at: { type: "string", format: "date-time" },
    replicas: { type: "integer", minimum: 1, maximum: 9, default: 3 },
    ratio: { type: "number", minimum: 0, maximum: 1 },
    notify: { type: "boolean", default: true },
    env: { type: "string", enum: ["staging", "production"], default: "staging" },
    region: {
      type: "string",
      title: "Region",
      oneOf: [
        { const: "eu-west-1", title: "Ireland" },
        { const: "us-east-1", title: "Virginia" },
      ],
    },
    legacy: { type: "string", enum: ["s", "m", "l"], enumNames: ["Small", "Medium", "Large"] },
    tags: { type: "array", minItems: 1, maxItems: 2, items: { type: "string", enum: ["red", "green", "blue"] }, default: ["red"] },
    teams: {
      type: "array",
      maxItems: 3,
      items: {
        anyOf: [
          { const: "ops", title: "Operations" },
          { const: "sec", title: "Security" },
        ],
      },
    },
  },
  required: ["name", "email", "env", "region", "tags"],
};

const valid = {
  name: "Grace",
  email: "grace@example.org",
  homepage: "https://example.org/grace",
  day: "2026-12-24",
  at: "2026-12-24T18:30:00+01:00",
  replicas: 4,
  ratio: 0.25,
  notify: false,
  env: "production",
  region: "us-east-1",
  legacy: "m",
  tags: ["green", "blue"],
  teams: [],
};

async function raise(id: string, params: Record<string, unknown>) {
  return t.http(runner, "POST", "/v1/sessions/forms_s/events", { type: "response.elicitation_request", elicitation_id: id, params });
}
const answer = (id: string, action: string, content?: unknown) => t.http(human, "POST", "/v1/sessions/forms_s/events", { type: "approval", elicitation_id: id, action, content });
const read = (id: string) => t.http(human, "GET", `/v1/elicitations/${id}`);

describe("the form grammar", () => {
  it("accepts every field kind and keeps the form as sent", async () => {
    const params = { message: "Configure the rollout", requestedSchema: everyKind };
    expect((await raise("kinds_1", params)).status).toBe(201);
    expect((await read("kinds_1")).body.event.params).toEqual(params);
    // The explicit form mode is the same grammar.
    expect((await raise("kinds_form_mode", { mode: "form", ...params })).status).toBe(201);
  });

  it("takes content that fits, exactly as sent", async () => {
    await raise("kinds_ok", { message: "Configure", requestedSchema: everyKind });
    expect((await answer("kinds_ok", "accept", valid)).status).toBe(200);
    expect((await read("kinds_ok")).body.verdict).toMatchObject({ action: "accept", content: valid });
    // Only the required fields: optional ones may be left out.
    await raise("kinds_min", { message: "Configure", requestedSchema: everyKind });
    const least = { name: "Al", email: "a@b", env: "staging", region: "eu-west-1", tags: ["red"] };
    expect((await answer("kinds_min", "accept", least)).status).toBe(200);
    expect((await read("kinds_min")).body.verdict.content).toEqual(least);
  });

  it("refuses content that breaks the form, naming the field, and changes nothing", async () => {
    await raise("kinds_bad", { message: "Configure", requestedSchema: everyKind });
    const before = await t.quietScan();
    const breaks: [Record<string, unknown>, string][] = [
      [{ name: "G" }, "name"],
      [{ name: "Grace Brewster Murray" }, "name"],
      [{ name: 7 }, "name"],
      [{ email: "grace" }, "email"],
      [{ email: "grace@exa mple.org" }, "email"],
      [{ homepage: "example.org/grace" }, "homepage"],
      [{ day: "24/12/2026" }, "day"],
      [{ day: "2026-02-30" }, "day"],
      [{ at: "2026-12-24T18:30" }, "at"],
      [{ at: "tomorrow" }, "at"],
      [{ replicas: 3.5 }, "replicas"],
      [{ replicas: 0 }, "replicas"],
      [{ replicas: 10 }, "replicas"],
      [{ replicas: "4" }, "replicas"],
      [{ ratio: 1.5 }, "ratio"],
      [{ notify: "yes" }, "notify"],
      [{ env: "moon" }, "env"],
      [{ region: "Ireland" }, "region"],
      [{ legacy: "Medium" }, "legacy"],
      [{ tags: [] }, "tags"],
      [{ tags: ["red", "green", "blue"] }, "tags"],
      [{ tags: ["red", "red"] }, "tags"],
      [{ tags: ["pink"] }, "tags.0"],
      [{ tags: "red" }, "tags"],
      [{ teams: ["Operations"] }, "teams.0"],
      [{ extra: 1 }, "extra"],
    ];
    for (const [change, field] of breaks) {
      const r = await answer("kinds_bad", "accept", { ...valid, ...change });
      expect(r.status, JSON.stringify(change)).toBe(400);
      expect(r.body.error.code).toBe("bad_request");
      expect(r.body.error.message, JSON.stringify(change)).toContain(`requestedSchema: ${field}: `);
    }
    for (const field of everyKind.required) {
      const { [field]: _, ...without } = valid as Record<string, unknown>;
      const r = await answer("kinds_bad", "accept", without);
      expect(r.body.error.message).toContain(`requestedSchema: ${field}: required`);
    }
    // Leaving the content out skips no required field.
    const bare = await answer("kinds_bad", "accept");
    expect(bare.status).toBe(400);
    expect(bare.body.error.message).toBe("content does not fit requestedSchema: name: required");
    expect(await t.quietScan()).toEqual(before);
    expect((await read("kinds_bad")).body.status).toBe("pending");
    expect((await answer("kinds_bad", "accept", valid)).status).toBe(200);
  });

  it("takes an accept without content when the form requires nothing, and a decline of any form", async () => {
    const optional = { type: "object", properties: { note: { type: "string" } } };
    await raise("optional_bare", { message: "Anything to add?", requestedSchema: optional });
    expect((await answer("optional_bare", "accept")).status).toBe(200);
    expect((await read("optional_bare")).body.verdict).toMatchObject({ action: "accept", reason: "answered" });
    expect((await read("optional_bare")).body.verdict.content).toBeUndefined();
    await raise("required_declined", { message: "Configure", requestedSchema: everyKind });
    expect((await answer("required_declined", "decline")).status).toBe(200);
  });

  it("refuses a form that cannot be answered as it says, naming where, and stores nothing", async () => {
    const before = await t.quietScan();
    const forms: [Record<string, unknown>, string][] = [
      [{ type: "string", enum: ["a"], oneOf: [{ const: "a", title: "A" }] }, "f.oneOf"],
      [{ type: "string", enum: ["a", "b"], enumNames: ["A"] }, "f.enumNames"],
      [{ type: "string", enumNames: ["A"] }, "f.enumNames"],
      [{ type: "string", enum: ["a", "a"] }, "f.enum"],
      [
        {
          type: "string",
          oneOf: [
            { const: "a", title: "A" },
            { const: "a", title: "B" },
          ],
        },
        "f.oneOf",
      ],
      [{ type: "string", oneOf: [{ const: "a" }] }, "f.oneOf.0.title"],
      [{ type: "string", oneOf: [] }, "f.oneOf"],
      [{ type: "string", enum: ["a"], default: "b" }, "f.default"],
      [{ type: "string", format: "phone" }, "f.format"],
      [{ type: "string", minLength: 5, maxLength: 2 }, "f.minLength"],
      [{ type: "number", minimum: 5, maximum: 2 }, "f.minimum"],
      [{ type: "array", items: { type: "string" } }, "f.items"],
      [{ type: "array", items: { enum: ["a"], anyOf: [{ const: "a", title: "A" }] } }, "f.items"],
      [{ type: "array", items: { type: "number", enum: ["a"] } }, "f.items.type"],
      [{ type: "array", enum: ["a"] }, "f"],
      [{ type: "array", items: { enum: ["a", "b"] }, minItems: 2, maxItems: 1 }, "f.minItems"],
      [{ type: "array", items: { anyOf: [{ const: "a", title: "A" }] }, default: ["z"] }, "f.default"],
      [{ type: "array", items: { enum: ["a"] }, default: "a" }, "f.default"],
      [{ type: "object", properties: {} }, "f.type"],
    ];
    for (const [i, [property, where]] of forms.entries()) {
      const r = await raise(`incoherent_${i}`, { message: "?", requestedSchema: { type: "object", properties: { f: property } } });
      expect(r.status, JSON.stringify(property)).toBe(400);
      expect(r.body.error.code).toBe("bad_request");
      expect(r.body.error.message, JSON.stringify(property)).toContain(`params.requestedSchema.properties.${where}`);
    }
    expect(await t.quietScan()).toEqual(before);
  });
});

describe("URL mode", () => {
  const url = "https://auth.example.com/authorize?client_id=tollgate&state=x%20y#top";

  it("carries the address to the human; accepting is the consent, without content", async () => {
    const params = { mode: "url", message: "Sign in to the issue tracker", url, elicitationId: "mcp-elicit-7" };
    expect((await raise("url_ok", params)).status).toBe(201);
    expect((await read("url_ok")).body.event.params).toEqual(params);
    const peek = await t.http(runner, "GET", "/v1/sessions/forms_s/peek");
    expect(peek.body.items).toContainEqual({ type: "pending_elicitation", elicitation_id: "url_ok", prompt: "Sign in to the issue tracker" });

    const before = await t.quietScan();
    const r = await answer("url_ok", "accept", { done: true });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toMatch(/URL-mode/);
    expect(await t.quietScan()).toEqual(before);

    expect((await answer("url_ok", "accept")).status).toBe(200);
    expect((await read("url_ok")).body.verdict).toMatchObject({ action: "accept", reason: "answered", resolved_by: "human-1" });
    expect((await read("url_ok")).body.verdict.content).toBeUndefined();
  });

  it("delivers the consent to the runner that asked over its socket", async () => {
    const socket = await t.socket(runner);
    expect((await socket.request({ action: "hello", sessions: [{ session_id: "forms_s" }] })).type).not.toBe("error");
    const parked = await socket.request({
      action: "elicit",
      session_id: "forms_s",
      elicitation_id: "url_ws",
      params: { mode: "url", message: "Pay the invoice", url: "https://pay.example.com/i/42", elicitationId: "pay-42" },
    });
    expect(parked.type).toBe("elicitation.parked");
    expect((await answer("url_ws", "decline")).status).toBe(200);
    const verdict = await socket.next((f) => f.type === "elicitation.verdict" && f.elicitation_id === "url_ws");
    expect(verdict).toMatchObject({ action: "decline", reason: "answered" });
  });

  it("refuses an address that is not a plain web address, and a URL request missing its parts", async () => {
    const before = await t.quietScan();
    const base = { mode: "url", message: "Open this", url, elicitationId: "e1" };
    const refused: [Record<string, unknown>, string][] = [
      [{ url: "javascript:alert(1)" }, "params.url"],
      [{ url: "data:text/html,<b>x</b>" }, "params.url"],
      [{ url: "file:///etc/passwd" }, "params.url"],
      [{ url: "/relative/path" }, "params.url"],
      [{ url: "https://user:secret@auth.example.com/" }, "params.url"],
      [{ url: `https://example.com/${"a".repeat(8_000)}` }, "params.url"],
      [{ url: undefined }, "params.url"],
      [{ elicitationId: undefined }, "params.elicitationId"],
      [{ elicitationId: "" }, "params.elicitationId"],
      [{ requestedSchema: { type: "object", properties: {} } }, "params.requestedSchema"],
      [{ mode: "form" }, "params"],
      [{ mode: "browser" }, "params.mode"],
    ];
    for (const [i, [change, where]] of refused.entries()) {
      const r = await raise(`url_bad_${i}`, { ...base, ...change });
      expect(r.status, JSON.stringify(change)).toBe(400);
      expect(r.body.error.code).toBe("bad_request");
      expect(r.body.error.message, JSON.stringify(change)).toContain(`${where}`);
    }
    expect(await t.quietScan()).toEqual(before);
  });
});
