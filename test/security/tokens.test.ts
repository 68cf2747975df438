/**
 * Bearer tokens. Forged, expired, not-yet-valid, wrong-algorithm (`none`, HS384/HS512,
 * RS256/ES256 key confusion), wrong-secret, tampered and claim-less tokens are refused: 401 with
 * the protocol's error body on every HTTP route, and a refused upgrade on the WebSocket, whether the
 * token comes as a header or as `?token=`. The same verifier runs as the cloud's `$connect`
 * authorizer, which is also called directly here.
 */
import { createHmac } from "node:crypto";
import { SignJWT, UnsecuredJWT, exportJWK, generateKeyPair, type JWTPayload } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handler as authorizer } from "../../functions/ws-authorizer.js";
import { SECRET, startTollgate, type Harness } from "../support/tollgate.js";
import { rawHttp, upgradeStatus } from "./support.js";

let t: Harness;
let valid: string;
const bad: [string, string][] = [];

const key = (secret: string) => new TextEncoder().encode(secret);
const now = () => Math.floor(Date.now() / 1000);
const b64 = (value: unknown) => Buffer.from(typeof value === "string" ? value : JSON.stringify(value)).toString("base64url");
const claims = (extra: JWTPayload = {}): JWTPayload => ({ sub: "mallory", tenant: "acme", role: "service", exp: now() + 3600, ...extra });

/** A token signed with HMAC-SHA256 by hand: any header, any key (jose refuses some of these to sign). */
function hmacByHand(header: object, payload: JWTPayload, secret: string): string {
  const signing = `${b64(header)}.${b64(payload)}`;
  return `${signing}.${createHmac("sha256", secret).update(signing).digest("base64url")}`;
}

async function hs(payload: JWTPayload, alg = "HS256", secret = SECRET, header: Record<string, unknown> = {}) {
  return new SignJWT(payload).setProtectedHeader({ alg, typ: "JWT", ...header }).sign(key(secret));
}

beforeAll(async () => {
  t = await startTollgate();
  valid = await t.token("service", "mallory");
  const [header, payload, signature] = valid.split(".");
  const rsa = await generateKeyPair("RS256");
  const ec = await generateKeyPair("ES256");
  const without = (name: string) => Object.fromEntries(Object.entries(claims()).filter(([k]) => k !== name));
  bad.push(
    ["no token", ""],
    ["garbage", "not-a-jwt"],
    ["three dots of garbage", "a.b.c"],
    ["wrong secret", await hs(claims(), "HS256", "not-the-secret")],
    ["empty secret", hmacByHand({ alg: "HS256", typ: "JWT" }, claims(), "")],
    ["alg none (jose)", new UnsecuredJWT(claims()).encode()],
    ["alg none, hand-made, empty signature", `${b64({ alg: "none", typ: "JWT" })}.${b64(claims())}.`],
    ["alg none, hand-made, valid signature kept", `${b64({ alg: "none", typ: "JWT" })}.${payload}.${signature}`],
    ["alg NONE", `${b64({ alg: "NONE" })}.${b64(claims())}.`],
    ["HS512 with the right secret", await hs(claims(), "HS512")],
    ["HS384 with the right secret", await hs(claims(), "HS384")],
    ["RS256 (algorithm switching)", await new SignJWT(claims()).setProtectedHeader({ alg: "RS256" }).sign(rsa.privateKey)],
    ["ES256 (algorithm switching)", await new SignJWT(claims()).setProtectedHeader({ alg: "ES256" }).sign(ec.privateKey)],
    ["RS256 header with an HMAC signature keyed by the public key (key confusion)", hmacByHand({ alg: "RS256", typ: "JWT" }, claims(), JSON.stringify(await exportJWK(rsa.publicKey)))],
    ["HS256 keyed by the public key", hmacByHand({ alg: "HS256", typ: "JWT" }, claims(), JSON.stringify(await exportJWK(rsa.publicKey)))],
    ["signed with an attacker key it embeds as jwk", await hs(claims(), "HS256", "attacker-key", { jwk: { kty: "oct", k: b64("attacker-key") } })],
    ["crit header nobody understands", hmacByHand({ alg: "HS256", typ: "JWT", crit: ["exp2"], exp2: 1 }, claims(), SECRET)],
    ["expired", await hs(claims({ exp: now() - 10 }))],
    ["expired long ago", await hs(claims({ exp: 1 }))],
    ["not valid yet (nbf in the future)", await hs(claims({ nbf: now() + 3600 }))],
    ["no exp", await hs(without("exp"))],
    ["exp not a number", await hs(claims({ exp: "tomorrow" as unknown as number }))],
    ["no tenant", await hs(without("tenant"))],
    ["no role", await hs(without("role"))],
    ["no sub", await hs(without("sub"))],
    ["empty sub", await hs(claims({ sub: "" }))],
    ["unknown role", await hs(claims({ role: "admin" }))],
    ["role as a list", await hs(claims({ role: ["service"] }))],
    ["tenant that is not an id", await hs(claims({ tenant: "acme#S#conv" }))],
    ["tenant not a string", await hs(claims({ tenant: 42 }))],
    ["tampered payload (role raised), old signature", `${header}.${b64({ ...JSON.parse(Buffer.from(payload, "base64url").toString()), role: "service", tenant: "other" })}.${signature}`],
    ["signature stripped", `${header}.${payload}.`],
    ["signature of another token", `${header}.${b64(claims({ sub: "eve" }))}.${signature}`],
    // Over the verifier's 8 KiB cap, under the 16 KiB of headers an HTTP server takes at all.
    ["oversized token (otherwise valid)", await hs(claims({ pad: "x".repeat(7_000) }))],
  );
});
afterAll(() => t?.stop());

const routes: [string, string, unknown?][] = [
  ["PUT", "/v1/sessions/conv_tok", {}],
  ["GET", "/v1/sessions"],
  ["GET", "/v1/sessions?ids=conv_tok"],
  ["GET", "/v1/sessions?pending=true"],
  ["GET", "/v1/sessions/conv_tok"],
  ["GET", "/v1/sessions/conv_tok/peek"],
  ["POST", "/v1/sessions/conv_tok/events", { type: "response.elicitation_request", elicitation_id: "el_tok", params: { message: "May I?" } }],
  ["POST", "/v1/sessions/conv_tok/events", { type: "approval", elicitation_id: "el_tok", action: "accept" }],
  ["POST", "/v1/sessions/conv_tok/events", { type: "response.elicitation_resolved", elicitation_id: "el_tok" }],
  ["GET", "/v1/elicitations/el_tok"],
  ["POST", "/v1/sessions/conv_tok/cancel", {}],
  ["POST", "/v1/sessions/conv_tok/messages", { text: "hi" }],
];

describe("HTTP", () => {
  it("refuses every bad token with 401 unauthorized on every route, and stores nothing", async () => {
    const before = await t.quietScan();
    const replies = await Promise.all(
      bad.flatMap(([name, token]) =>
        routes.map(async ([method, path, body]) => ({ name, method, path, reply: await rawHttp(t, token || undefined, method, path, body === undefined ? undefined : { json: body }) })),
      ),
    );
    for (const { name, method, path, reply } of replies) {
      expect({ name, method, path, status: reply.status, body: reply.json }).toEqual({
        name,
        method,
        path,
        status: 401,
        body: { error: { code: "unauthorized", message: "missing, invalid or expired token" } },
      });
    }
    expect(await t.quietScan()).toEqual(before);
  });

  it("accepts only `Authorization: Bearer`: not `?token=`, not another scheme", async () => {
    const asQuery = await rawHttp(t, undefined, "GET", `/v1/sessions?token=${valid}`);
    expect(asQuery.status).toBe(401);
    const basic = await fetch(`${t.runtime.httpUrl}/v1/sessions`, { headers: { authorization: `Basic ${valid}` } });
    expect(basic.status).toBe(401);
    const twice = await fetch(`${t.runtime.httpUrl}/v1/sessions`, { headers: { authorization: `Bearer ${valid} ${valid}` } });
    expect(twice.status).toBe(401);
  });

  it("the valid token of the same claims works (the refusals above are about the token alone)", async () => {
    expect((await rawHttp(t, valid, "PUT", "/v1/sessions/conv_tok", { json: {} })).status).toBe(200);
    expect((await rawHttp(t, valid, "GET", "/v1/sessions/conv_tok")).status).toBe(200);
  });
});

describe("WebSocket", () => {
  it("refuses the upgrade for every bad token, as a header or as ?token=", async () => {
    const statuses = await Promise.all(
      bad.flatMap(([name, token]) => (["header", "query"] as const).map(async (via) => ({ name, via, status: await upgradeStatus(t.runtime.wsUrl, token || undefined, via) }))),
    );
    for (const s of statuses) expect(s).toEqual({ ...s, status: 401 });
    expect(await upgradeStatus(t.runtime.wsUrl, valid, "header")).toBe(101);
    expect(await upgradeStatus(t.runtime.wsUrl, valid, "query")).toBe(101);
  });

  it("the $connect authorizer itself throws Unauthorized (API Gateway's 401) and hands on only verified claims", async () => {
    const event = (token: string) => ({
      type: "REQUEST",
      methodArn: "arn:aws:execute-api:us-east-1:000000000000:api/live/$connect",
      headers: { Authorization: `Bearer ${token}` },
      queryStringParameters: {},
    });
    for (const [name, token] of bad) {
      await expect(authorizer(event(token) as never, { services: t.runtime.services }), name).rejects.toThrow(/^Unauthorized$/);
    }
    const allowed = await authorizer(event(valid) as never, { services: t.runtime.services });
    expect(allowed.context).toEqual({ sub: "mallory", tenant: "acme", role: "service", exp: expect.any(Number) });
    expect(allowed.policyDocument.Statement).toEqual([{ Action: "execute-api:Invoke", Effect: "Allow", Resource: "arn:aws:execute-api:us-east-1:000000000000:api/live/$connect" }]);
  });
});
