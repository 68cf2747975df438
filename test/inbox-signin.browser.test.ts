/**
 * The inbox signs in with an OpenID Connect issuer, in headless Chromium: a real provider
 * (`oidc-provider`) on loopback, its login and consent pages, the authorization code flow with PKCE,
 * tokens kept in sessionStorage only and renewed before they expire, an approval answered as the
 * signed-in person, and sign-out.
 */
import { existsSync } from "node:fs";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../local/dynamodb.js";
import { AUDIENCE, startProvider, type TestProvider } from "./support/oidc.js";
import { startTollgate, type Harness } from "./support/tollgate.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"];
const poll = { timeout: 15_000, interval: 100 };

describe.skipIf(!existsSync(CHROMIUM) && !process.env.CI)("inbox sign-in with an OpenID issuer", () => {
  let t: Harness;
  let idp: TestProvider;
  let browser: Browser;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    const port = await freePort();
    const issuer = `http://127.0.0.1:${port}`;
    t = await startTollgate({
      oidcIssuers: [
        {
          issuer,
          audience: AUDIENCE,
          tenant: { claim: "org" },
          role: { claim: "groups", map: { "tollgate-approvers": "human" } },
          jwks_cooldown_seconds: 0,
        },
      ],
    });
    // Access tokens of 62 s: the inbox renews them a minute before expiry, so within the test.
    idp = await startProvider({
      port,
      people: { alice: { org: "acme", groups: ["tollgate-approvers"] }, bob: { org: "acme", groups: ["staff"] } },
      inboxRedirects: [`${t.runtime.httpUrl}/`],
      accessTokenSeconds: 62,
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  });

  afterAll(async () => {
    await browser?.close();
    await idp?.stop();
    await t?.stop();
  });

  const storage = (page: Page) =>
    page.evaluate(() => ({
      session: sessionStorage.getItem("tollgate.oidc.tokens"),
      local: Object.keys(localStorage).filter((k) => /token/i.test(k) && k !== "tollgate.token"),
      pasted: localStorage.getItem("tollgate.token"),
    }));

  /** A fresh browser context on the inbox configured for the issuer, its sign-in clicked: at the provider's login page. */
  async function startIssuerSignIn(hash = "") {
    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    page.on("pageerror", (e) => pageErrors.push(e.message));
    await page.goto(`${t.runtime.httpUrl}/?issuer=${encodeURIComponent(idp.issuer)}&client_id=inbox&resource=${encodeURIComponent(AUDIENCE)}${hash}`);
    await page.getByTestId("signin-issuer").click();
    return { context, page };
  }

  /** The provider's own login and consent pages, then back at the inbox. */
  async function signInOnProviderPages(page: Page, login: string) {
    await page.locator('input[name="login"]').fill(login);
    await page.locator('input[name="password"]').fill("any");
    await page.locator('button[type="submit"]').click();
    await page.locator('button[type="submit"]', { hasText: /continue/i }).click();
    await page.waitForURL((url) => url.origin === t.runtime.httpUrl && !url.searchParams.has("code"));
  }

  it("signs in through the issuer's login page, answers as that person, renews the token and signs out", async () => {
    const runner = await t.runner({ sessions: [{ session_id: "signin_release", title: "release" }] });
    const waiting = runner.elicit({ sessionId: "signin_release", elicitationId: "signin_e1", params: { message: "Ship it?" } });

    const { page } = await startIssuerSignIn("#session=signin_release");

    await signInOnProviderPages(page, "alice");
    await expect.poll(() => page.locator("#who").textContent(), poll).toContain("alice");
    const first = await storage(page);
    expect(first.session).toBeTruthy();
    expect(first.pasted).toBeNull();
    expect(first.local).toEqual([]);

    await page.getByTestId("session-signin_release").click();
    await page.getByTestId("accept-signin_e1").click();
    expect(await waiting).toMatchObject({ action: "accept", reason: "answered" });
    const human = await t.token("human", "someone");
    expect((await t.http(human, "GET", "/v1/elicitations/signin_e1")).body.verdict.resolved_by).toBe("alice");

    // Renewed with the refresh token before it expires.
    const before = JSON.parse(first.session!).access;
    await expect.poll(async () => JSON.parse((await storage(page)).session ?? "{}").access, poll).not.toBe(before);

    await page.locator("#signout").click();
    await page.getByTestId("signin-issuer").waitFor();
    expect((await storage(page)).session).toBeNull();
    expect(pageErrors).toEqual([]);
    runner.close();
  });

  it("says why when the issuer sends the person back without signing in, and cleans the address", async () => {
    const { page } = await startIssuerSignIn();
    await page.getByText("[ Cancel ]").click();

    await page.waitForURL((url) => url.origin === t.runtime.httpUrl);
    await expect.poll(() => page.getByRole("alert").allTextContents(), poll).toEqual(["Sign-in failed: End-User aborted interaction"]);
    expect(new URL(page.url()).search).toBe("");
    await page.getByTestId("signin-issuer").waitFor();
    expect(pageErrors).toEqual([]);
  });

  it("a person the mapping gives no role is told so on the sign-in page, not left 'Offline, retrying'", async () => {
    const { page } = await startIssuerSignIn();
    await signInOnProviderPages(page, "bob");

    await page.getByTestId("signin-issuer").waitFor();
    expect(await page.locator("#signin").getByRole("alert").textContent()).toContain("the token's identity has no Tollgate role");
    expect(await page.evaluate(() => sessionStorage.getItem("tollgate.oidc.tokens"))).toBeNull();
    expect(pageErrors).toEqual([]);
  });

  it("a renewal the network loses is tried again, so the person stays signed in", async () => {
    const { context, page } = await startIssuerSignIn();
    await signInOnProviderPages(page, "alice");
    const first = JSON.parse((await storage(page)).session!).access;

    // The issuer cannot be reached when the renewal is due (a laptop waking before its network),
    // and a reloaded page has yet to read its discovery document.
    await page.reload();
    let lost = 0;
    await context.route(`${idp.issuer}/**`, (route) => {
      lost++;
      return route.abort("internetdisconnected");
    });
    await expect.poll(() => lost, poll).toBeGreaterThan(0);
    await context.unroute(`${idp.issuer}/**`);

    await expect.poll(async () => JSON.parse((await storage(page)).session ?? "{}").access, poll).not.toBe(first);
    expect(pageErrors).toEqual([]);
  });
});
