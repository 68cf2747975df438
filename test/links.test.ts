/**
 * Approval links on the local runtime: shared by hand by a human or a service, each reads one
 * elicitation and gives it one verdict (`via: "link"`), and nothing else: not another elicitation,
 * not a list, not a subscription. Forged, altered, expired and cross-tenant links change nothing.
 */
import { createHmac } from "node:crypto";
import { SignJWT, UnsecuredJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SECRET, startTollgate, type Harness } from "./support/tollgate.js";

let t: Harness;
beforeAll(async () => {
  t = await startTollgate();
});
afterAll(async () => {
  await t?.stop();
});

const form = { type: "object", properties: { branch: { type: "string", maxLength: 20 } }, required: ["branch"] };

async function raise(session: string, id: string, options: { tenant?: string; timeout?: number; schema?: object } = {}) {
  const runner = await t.token("runner", "runner-1", options.tenant);
  await t.http(runner, "PUT", `/v1/sessions/${session}`, {});
  const params = { message: `${id}?`, ...(options.schema ? { requestedSchema: options.schema } : {}) };
  const r = await t.http(runner, "POST", `/v1/sessions/${session}/events`, { type: "response.elicitation_request", elicitation_id: id, params, timeout_seconds: options.timeout });
  expect(r.status).toBe(201);
  return r.body as { elicitation_id: string; deadline: string };
}

async function share(id: string, body: object = {}, tenant = "acme") {
  const r = await t.http(await t.token("human", "alice", tenant), "POST", `/v1/elicitations/${id}/link`, body);
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body as { elicitation_id: string; token: string; url: string; expires_at: string };
}

const read = (link: string | undefined) => t.http(link, "GET", "/v1/link");
const give = (link: string | undefined, body: object) => t.http(link, "POST", "/v1/link/verdict", body);
const elicitation = async (id: string, tenant = "acme") => (await t.http(await t.token("human", "h", tenant), "GET", `/v1/elicitations/${id}`)).body;

describe("sharing a link", () => {
  it("gives the link, the standalone page's address with it in the fragment, and the deadline as its expiry", async () => {
    const { deadline } = await raise("conv_share", "el_share");
    const link = await share("el_share");
    expect(link.elicitation_id).toBe("el_share");
    expect(link.expires_at).toBe(deadline);
    const url = new URL(link.url);
    expect(`${url.origin}${url.pathname}`).toBe(`${t.runtime.httpUrl}/approval.html`);
    expect(url.searchParams.get("elicitation")).toBe("el_share");
    expect(url.hash).toBe(`#link=${link.token}`);
    // A service may share one too; a runner may not.
    expect((await t.http(await t.token("service", "svc"), "POST", "/v1/elicitations/el_share/link", {})).status).toBe(201);
    const refused = await t.http(await t.token("runner"), "POST", "/v1/elicitations/el_share/link", {});
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("forbidden");
  });

  it("refuses an unknown, another tenant's or a resolved elicitation, and a bad body", async () => {
    await raise("conv_refuse", "el_refuse");
    const human = await t.token("human", "alice");
    expect((await t.http(human, "POST", "/v1/elicitations/el_nothing/link", {})).body.error.code).toBe("not_found");
    expect((await t.http(await t.token("human", "eve", "globex"), "POST", "/v1/elicitations/el_refuse/link", {})).body.error.code).toBe("not_found");
    for (const body of [{ for: "", extra: 1 }, { for: "target:ops" }, { for: "tollgate" }, { for: "x".repeat(257) }]) {
      const bad = await t.http(human, "POST", "/v1/elicitations/el_refuse/link", body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(bad.body.error.code).toBe("bad_request");
    }
    await t.http(human, "POST", "/v1/sessions/conv_refuse/events", { type: "approval", elicitation_id: "el_refuse", action: "decline" });
    const resolved = await t.http(human, "POST", "/v1/elicitations/el_refuse/link", {});
    expect(resolved.status).toBe(409);
    expect(resolved.body.error.code).toBe("conflict");
  });
});

describe("what a link may do", () => {
  it("reads its elicitation and gives one verdict, recorded via link and by whom it was made for", async () => {
    await raise("conv_use", "el_use", { schema: form });
    const link = await share("el_use", { for: "bob@example.com" });
    const seen = await read(link.token);
    expect(seen.status).toBe(200);
    expect(seen.body).toMatchObject({ session_id: "conv_use", status: "pending", event: { type: "response.elicitation_request", elicitation_id: "el_use", params: { message: "el_use?" } } });
    // The form's rules hold as for any verdict.
    const invalid = await give(link.token, { action: "accept", content: { branch: 7 } });
    expect(invalid.status).toBe(400);
    expect((await elicitation("el_use")).status).toBe("pending");
    const given = await give(link.token, { action: "accept", content: { branch: "main" }, message: "ship it" });
    expect(given.status).toBe(200);
    expect(given.body).toEqual({
      elicitation_id: "el_use",
      action: "accept",
      message: "ship it",
      reason: "answered",
      resolved_by: "bob@example.com",
      resolved_at: expect.any(String),
      status: "resolved",
    });
    // The same verdict again answers the same; another one is refused and says what stands, without the content.
    expect((await give(link.token, { action: "accept", content: { branch: "main" }, message: "ship it" })).status).toBe(200);
    const other = await give(link.token, { action: "decline" });
    expect(other.status).toBe(409);
    expect(other.body.error.verdict).toMatchObject({ action: "accept", resolved_by: "bob@example.com" });
    expect(other.body.error.verdict.content).toBeUndefined();
    // Resolved: the link reads the outcome, never the form's content.
    const after = await read(link.token);
    expect(after.body.status).toBe("resolved");
    expect(after.body.verdict).toMatchObject({ action: "accept", message: "ship it", resolved_by: "bob@example.com" });
    expect(after.body.verdict.content).toBeUndefined();
    // The audit record: how it came, and who.
    const history = await t.http(await t.token("human"), "GET", "/v1/history?session_id=conv_use");
    expect(history.body.items[0].verdict).toMatchObject({ action: "accept", via: "link", resolved_by: "bob@example.com", content: { branch: "main" } });
  });

  it("a link shared without `for` answers as the one who shared it", async () => {
    await raise("conv_by", "el_by");
    const link = await share("el_by");
    expect((await give(link.token, { action: "decline", message: "not now" })).status).toBe(200);
    expect((await elicitation("el_by")).verdict).toMatchObject({ action: "decline", resolved_by: "alice", message: "not now" });
  });

  it("reaches nothing else: no other elicitation, no list, no session, no event, no subscription", async () => {
    await raise("conv_fence", "el_fence");
    await raise("conv_fence", "el_fence_other");
    const { token: link } = await share("el_fence");
    for (const [method, path, body] of [
      ["GET", "/v1/elicitations/el_fence_other"],
      ["GET", "/v1/elicitations/el_fence"],
      ["GET", "/v1/sessions"],
      ["GET", "/v1/sessions/conv_fence"],
      ["GET", "/v1/history"],
      ["POST", "/v1/sessions/conv_fence/events", { type: "approval", elicitation_id: "el_fence_other", action: "accept" }],
      ["POST", "/v1/elicitations/el_fence_other/link", {}],
    ] as const) {
      const r = await t.http(link, method, path, body);
      expect(r.status, `${method} ${path}`).toBe(401);
      expect(r.body.error.code).toBe("unauthorized");
    }
    await expect(t.socket(link)).rejects.toThrow();
    expect((await elicitation("el_fence_other")).status).toBe("pending");
    expect((await elicitation("el_fence")).status).toBe("pending");
  });
});

describe("links that are refused", () => {
  const linkKey = () => new Uint8Array(createHmac("sha256", new TextEncoder().encode(SECRET)).update("tollgate approval links v1").digest());
  const claims = { tenant: "acme", elicitation_id: "el_forged" };
  const exp = () => Math.floor(t.clock.now() / 1000) + 3600;

  it("forged, altered, a token for a link, or no link at all: unauthorized, and nothing changes", async () => {
    await raise("conv_forged", "el_forged");
    const { token: real } = await share("el_forged");
    const [head, body, sig] = real.split(".");
    const altered = JSON.parse(Buffer.from(body, "base64url").toString());
    const otherBody = Buffer.from(JSON.stringify({ ...altered, elicitation_id: "el_forged_2" })).toString("base64url");
    const forged = [
      undefined,
      "",
      "not-a-link",
      `${head}.${otherBody}.${sig}`,
      `${head}.${body}.${sig.slice(0, -2)}${sig.endsWith("AA") ? "BA" : "AA"}`,
      await t.token("human", "alice"),
      // Signed with the token secret itself, not the links' key derived from it.
      await new SignJWT(claims).setProtectedHeader({ alg: "HS256" }).setSubject("x").setAudience("tollgate:approval-link").setExpirationTime(exp()).sign(new TextEncoder().encode(SECRET)),
      // The right key, another audience.
      await new SignJWT(claims).setProtectedHeader({ alg: "HS256" }).setSubject("x").setAudience("tollgate").setExpirationTime(exp()).sign(linkKey()),
      new UnsecuredJWT(claims).setSubject("x").setAudience("tollgate:approval-link").setExpirationTime(exp()).encode(),
      "x".repeat(5_000),
    ];
    for (const link of forged) {
      expect((await read(link)).status, String(link).slice(0, 40)).toBe(401);
      const r = await give(link, { action: "accept" });
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe("unauthorized");
    }
    expect((await elicitation("el_forged")).status).toBe("pending");
    // The real one still works: the refusals above were about the links, not the elicitation.
    expect((await read(real)).status).toBe(200);
  });

  it("a link made with the right key for another tenant's id reaches only its own tenant", async () => {
    await raise("conv_tenant", "el_tenant");
    await raise("conv_tenant", "el_tenant", { tenant: "globex" });
    const { token } = await share("el_tenant", {}, "globex");
    expect((await give(token, { action: "decline" })).status).toBe(200);
    expect((await elicitation("el_tenant", "globex")).status).toBe("resolved");
    expect((await elicitation("el_tenant", "acme")).status).toBe("pending");
    // Its tenant claim changed: the signature no longer holds.
    const [head, body, sig] = token.split(".");
    const moved = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body, "base64url").toString()), tenant: "acme" })).toString("base64url");
    expect((await give(`${head}.${moved}.${sig}`, { action: "accept" })).status).toBe(401);
    expect((await elicitation("el_tenant", "acme")).status).toBe("pending");
  });

  it("expires at the deadline", async () => {
    await raise("conv_expiry", "el_expiry", { timeout: 120 });
    const { token } = await share("el_expiry");
    expect((await read(token)).status).toBe(200);
    await t.elapse(121_000);
    const r = await give(token, { action: "accept" });
    expect(r.status).toBe(401);
    expect((await read(token)).status).toBe(401);
    expect((await elicitation("el_expiry")).verdict?.reason).not.toBe("answered");
  });
});
