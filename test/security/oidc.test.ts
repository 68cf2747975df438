/**
 * Sign-in with an OpenID Connect issuer: a real provider (`oidc-provider`) on loopback issues the
 * tokens. Machines get client-credentials tokens and park; people's tokens answer; the claim
 * mapping picks tenant and role; rotated keys keep working; tokens of an unconfigured issuer, an
 * expired one, one for another audience and one signed with an unknown key are refused on HTTP and
 * on the WebSocket upgrade.
 */
import { SignJWT, generateKeyPair } from "jose";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createIssuerVerifier, parseIssuers, type IssuerConfig } from "../../functions/shared/oidc.js";
import { logger } from "../../functions/shared/logger.js";
import { clientCredentials } from "../../sdk/client-credentials.js";
import { TollgateRunner, type TokenSource } from "../../sdk/runner.js";
import { AUDIENCE, startProvider, type TestProvider } from "../support/oidc.js";
import { startTollgate, type Harness } from "../support/tollgate.js";
import { cli } from "../support/cli.js";
import { upgradeStatus } from "./support.js";

const machines = {
  "agent-acme": { org: "acme", groups: ["tollgate-agents"] },
  "approver-acme": { org: "acme", groups: ["staff", "tollgate-approvers"], alg: "RS256" as const },
  "ops-beta": { org: "beta", groups: ["tollgate-admins"] },
  "visitor-acme": { org: "acme", groups: ["staff"] },
  "agent-without-org": { groups: ["tollgate-agents"] },
};

const issuerConfig = (issuer: string): IssuerConfig =>
  parseIssuers(
    JSON.stringify([
      {
        issuer,
        audience: AUDIENCE,
        tenant: { claim: "org" },
        role: { claim: "groups", map: { "tollgate-admins": "service", "tollgate-approvers": "human", "tollgate-agents": "runner" } },
        jwks_cooldown_seconds: 0,
        clock_tolerance_seconds: 0,
      },
    ]),
  )[0];

let idp: TestProvider;
let stranger: TestProvider;
let t: Harness;

beforeAll(async () => {
  idp = await startProvider({ machines });
  stranger = await startProvider({ machines });
  t = await startTollgate({ oidcIssuers: [issuerConfig(idp.issuer)] });
});

afterAll(async () => {
  await t?.stop();
  await idp?.stop();
  await stranger?.stop();
});

const runnerWith = async (token: TokenSource, session_id: string) => {
  const runner = new TollgateRunner({ url: t.runtime.wsUrl, token, sessions: [{ session_id }], backoff: { initialMs: 20, maxMs: 200 } });
  await runner.connect();
  return runner;
};

describe("tokens of a configured issuer", () => {
  it("a machine parks with a client-credentials token and a person of its tenant answers", async () => {
    const machine = clientCredentials({ issuer: idp.issuer, clientId: "agent-acme", clientSecret: "agent-acme-secret", scope: "tollgate", resource: AUDIENCE });
    const runner = await runnerWith(machine, "oidc_deploy");
    const human = await idp.machineToken("approver-acme");
    try {
      const waiting = runner.elicit({ sessionId: "oidc_deploy", elicitationId: "oidc_e1", params: { message: "Deploy?" } });
      await expect.poll(async () => (await t.http(human, "GET", "/v1/sessions/oidc_deploy")).body?.pending_elicitations_count, { timeout: 15_000 }).toBe(1);
      const answer = await t.http(human, "POST", "/v1/sessions/oidc_deploy/events", { type: "approval", elicitation_id: "oidc_e1", action: "accept" });
      expect(answer.status).toBe(200);
      expect(await waiting).toMatchObject({ action: "accept", reason: "answered" });
      const read = await t.http(human, "GET", "/v1/elicitations/oidc_e1");
      expect(read.body.verdict.resolved_by).toBe("approver-acme");
    } finally {
      runner.close();
    }
  });

  it("maps the tenant claim: another tenant's person sees nothing of it", async () => {
    const beta = await idp.machineToken("ops-beta");
    expect((await t.http(beta, "GET", "/v1/sessions/oidc_deploy")).status).toBe(404);
    expect((await t.http(beta, "GET", "/v1/sessions")).body.sessions).toEqual([]);
  });

  it("maps the role: a person is human (may not register sessions), an admin group is service", async () => {
    const human = await idp.machineToken("approver-acme");
    expect((await t.http(human, "PUT", "/v1/sessions/oidc_other", {})).status).toBe(403);
    const service = await idp.machineToken("ops-beta");
    expect((await t.http(service, "PUT", "/v1/sessions/oidc_beta", {})).status).toBe(200);
  });

  it("an identity with no mapped role or tenant is forbidden on HTTP and on the upgrade", async () => {
    for (const client of ["visitor-acme", "agent-without-org"]) {
      const token = await idp.machineToken(client);
      const reply = await t.http(token, "GET", "/v1/sessions");
      expect(reply.status, client).toBe(403);
      expect(reply.body.error.code).toBe("forbidden");
      expect(await upgradeStatus(t.runtime.wsUrl, token, "header"), client).toBe(403);
    }
  });

  it("keeps working when the issuer rotates its keys", async () => {
    const before = await idp.machineToken("approver-acme");
    expect((await t.http(before, "GET", "/v1/sessions")).status).toBe(200);
    await idp.rotateKeys();
    const after = await idp.machineToken("approver-acme");
    expect(after.split(".")[0]).not.toBe(before.split(".")[0]); // a new kid
    expect((await t.http(after, "GET", "/v1/sessions")).status).toBe(200);
    expect(await upgradeStatus(t.runtime.wsUrl, await idp.machineToken("agent-acme"), "query")).toBe(101);
  });
});

describe("the runner's client-credentials token provider", () => {
  it("answers from its cache and fetches a new token shortly before expiry", async () => {
    const shortLived = await startProvider({ machines, accessTokenSeconds: 2 });
    try {
      const provider = clientCredentials({ issuer: shortLived.issuer, clientId: "agent-acme", clientSecret: "agent-acme-secret", scope: "tollgate", resource: AUDIENCE, refreshBeforeSeconds: 1 });
      const first = await provider();
      expect(await provider()).toBe(first);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      expect(await provider()).not.toBe(first);
    } finally {
      await shortLived.stop();
    }
  });

  it("tollgate token --issuer fetches a machine token the API accepts", async () => {
    const out = await cli(["token", "--issuer", idp.issuer, "--client-id", "ops-beta", "--client-secret", "ops-beta-secret", "--scope", "tollgate", "--resource", AUDIENCE], {});
    expect(out.code, out.stderr).toBe(0);
    expect((await t.http(out.stdout.trim(), "PUT", "/v1/sessions/oidc_cli", {})).status).toBe(200);
    const refused = await cli(["token", "--issuer", idp.issuer, "--client-id", "ops-beta", "--client-secret", "wrong"], {});
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/the issuer gave no token: the token endpoint answered 401/);
    const down = await startProvider();
    await down.stop();
    const unreachable = await cli(["token", "--issuer", down.issuer, "--client-id", "ops-beta", "--client-secret", "ops-beta-secret"], {});
    expect(unreachable.code).toBe(6);
    expect(unreachable.stderr).toContain(`the issuer gave no token: cannot reach ${down.issuer}/.well-known/openid-configuration (ECONNREFUSED)`);
  }, 90_000); // three CLI processes

  it("says which address it cannot reach", async () => {
    const down = await startProvider({ machines });
    const provider = clientCredentials({ issuer: down.issuer, clientId: "agent-acme", clientSecret: "agent-acme-secret", resource: AUDIENCE });
    await down.stop();
    await expect(provider()).rejects.toThrow(`cannot reach ${down.issuer}/.well-known/openid-configuration (ECONNREFUSED)`);
  });

  it("says what went wrong when the client is refused", async () => {
    const provider = clientCredentials({ issuer: idp.issuer, clientId: "agent-acme", clientSecret: "wrong", resource: AUDIENCE });
    await expect(provider()).rejects.toThrow(/token endpoint answered 401 \(invalid_client\)/);
  });
});

describe("refused tokens", () => {
  const refused: [string, () => Promise<string>][] = [
    ["an unconfigured issuer's", () => stranger.machineToken("agent-acme")],
    ["an expired", () => idp.signWithProviderKey({ sub: "agent-acme", org: "acme", groups: ["tollgate-agents"], exp: Math.floor(Date.now() / 1000) - 5 })],
    ["another audience's", () => idp.machineToken("agent-acme", "urn:another:api")],
    [
      "an unknown key's",
      async () => {
        const { privateKey } = await generateKeyPair("ES256");
        return new SignJWT({ org: "acme", groups: ["tollgate-agents"] })
          .setProtectedHeader({ alg: "ES256", kid: "not-published" })
          .setIssuer(idp.issuer)
          .setAudience(AUDIENCE)
          .setSubject("agent-acme")
          .setExpirationTime("10m")
          .sign(privateKey);
      },
    ],
  ];
  for (const [name, make] of refused) {
    it(`${name} token is unauthorized on HTTP and on the WebSocket upgrade`, async () => {
      const token = await make();
      const reply = await t.http(token, "GET", "/v1/sessions");
      expect(reply.status).toBe(401);
      expect(reply.body.error.code).toBe("unauthorized");
      expect(await upgradeStatus(t.runtime.wsUrl, token, "header")).toBe(401);
      expect(await upgradeStatus(t.runtime.wsUrl, token, "query")).toBe(401);
    });
  }
});

describe("an issuer written with or without its trailing slash", () => {
  it("verifies the issuer's tokens either way", async () => {
    const slashed = await startProvider({ machines, issuerSlash: true });
    try {
      for (const [provider, configured] of [
        [slashed, slashed.issuer.replace(/\/$/, "")],
        [idp, `${idp.issuer}/`],
      ] as const) {
        const token = await provider.machineToken("agent-acme");
        const verifier = createIssuerVerifier([issuerConfig(configured)]);
        const iss = provider.issuer;
        expect(verifier.handles(iss), configured).toBe(true);
        await expect(verifier.verify(token, iss)).resolves.toMatchObject({ sub: "agent-acme", tenant: "acme", role: "runner" });
      }
    } finally {
      await slashed.stop();
    }
  });
});

describe("access tokens without an audience claim (as Cognito's)", () => {
  it("checks client_id against the audience, takes a fixed tenant, and pools roles from several claims (scope split on spaces)", async () => {
    const [config] = parseIssuers(
      JSON.stringify([
        { issuer: idp.issuer, audience: ["agent-acme"], audience_claim: "client_id", tenant: { value: "acme" }, role: { claim: ["cognito:groups", "scope"], map: { tollgate: "runner" } } },
      ]),
    );
    const verifier = createIssuerVerifier([config]);
    await expect(verifier.verify(await idp.machineToken("agent-acme"), idp.issuer)).resolves.toMatchObject({ sub: "agent-acme", tenant: "acme", role: "runner" });
    await expect(verifier.verify(await idp.machineToken("ops-beta"), idp.issuer)).rejects.toMatchObject({ code: "unauthorized" });
  });
});

describe("an issuer that cannot be reached", () => {
  it("fails closed and says so in the logs once per interval, not per request", async () => {
    const down = await startProvider({ machines });
    const verifier = createIssuerVerifier([issuerConfig(down.issuer)]);
    const token = await down.machineToken("agent-acme");
    await down.stop();
    const errors = vi.spyOn(logger, "error").mockImplementation(() => undefined);
    try {
      for (let i = 0; i < 3; i++) await expect(verifier.verify(token, down.issuer)).rejects.toMatchObject({ code: "unauthorized" });
      expect(errors.mock.calls.filter(([message]) => String(message).includes("unreachable"))).toHaveLength(1);
    } finally {
      errors.mockRestore();
    }
  });
});
