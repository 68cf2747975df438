/**
 * The approval inbox in headless Chromium against the real local runtime: live badges and cards,
 * answering (plain and form), the verdict every tab learns, the standalone approval page, and the
 * standing verdict of an approval someone else answered first.
 */
import { ApiGatewayManagementApiClient, DeleteConnectionCommand } from "@aws-sdk/client-apigatewaymanagementapi";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { mintToken } from "../local/tokens.js";
import { live, noBrowser, poll, sid, startInbox, text, visible, type Inbox } from "./support/inbox.js";
import { SECRET } from "./support/tollgate.js";

describe.skipIf(noBrowser)("approval inbox in a browser", () => {
  let inbox: Inbox;
  let t: Inbox["t"];
  let human: string;
  let runner: string;
  const open: Inbox["open"] = (...a) => inbox.open(...a);
  const session: Inbox["session"] = (...a) => inbox.session(...a);
  const raise: Inbox["raise"] = (...a) => inbox.raise(...a);

  beforeAll(async () => {
    inbox = await startInbox();
    ({ t, human, runner } = inbox);
  });

  afterAll(() => inbox?.stop());

  afterEach(() => {
    expect(inbox.pageErrors).toEqual([]);
  });

  it("shows a live badge and card, approves, and every view learns the verdict", async () => {
    const root = sid("conv_root");
    const child = sid("conv_child");
    await session(root, { title: "Release rollout" });
    await session(child, { parent_session_id: root, title: "builder:Fetch" });
    // Raised before the inbox opens: replayed on cold open as a sub-agent's prompt.
    const early = await raise(child, { message: "Fetch from <img src=x onerror=alert(1)>?" });

    const page = await open(`/#session=${root}`);
    expect(page.url()).not.toContain("token=");
    await page.getByTestId(`card-${early}`).waitFor();
    expect(await text(page, `card-${early}`)).toContain("Fetch from <img src=x onerror=alert(1)>?");
    expect(await text(page, `card-${early}`)).toContain("builder:Fetch");
    expect(await page.getByTestId(`card-${early}`).locator("img").count()).toBe(0);
    expect(await text(page, `badge-${child}`)).toContain("1");
    expect(await visible(page, `badge-${root}`)).toBe(false);
    // The child sits under its parent in the tree.
    expect(await page.locator(`li:has(> [data-testid="session-${root}"]) [data-testid="session-${child}"]`).count()).toBe(1);

    // Raised while the inbox is open: badge and card arrive live.
    await live(page);
    const id = await raise(root, { message: "Approve running 'git push'?" });
    await expect.poll(() => visible(page, `badge-${root}`), poll).toBe(true);
    expect(await text(page, `badge-${root}`)).toContain("1");
    await page.getByTestId(`card-${id}`).waitFor();
    expect(await text(page, `card-${id}`)).toContain("Approve running 'git push'?");
    expect(await page.getByTestId(`accept-${id}`).textContent()).toBe("Approve");

    await page.getByTestId(`accept-${id}`).click();
    await expect.poll(() => text(page, `verdict-${id}`), poll).toMatch(/Accepted.*answered by.*human-1/);
    await expect.poll(() => visible(page, `badge-${root}`), poll).toBe(false);
    expect(await page.getByTestId(`accept-${id}`).count()).toBe(0);

    const e = await t.http(human, "GET", `/v1/elicitations/${id}`);
    expect(e.body).toMatchObject({ status: "resolved", verdict: { action: "accept", reason: "answered", resolved_by: "human-1" } });

    // Another human declines the early one through the API: this tab shows who answered.
    const other = await t.token("human", "human-2");
    const r = await t.http(other, "POST", `/v1/sessions/${child}/events`, { type: "approval", elicitation_id: early, action: "decline" });
    expect(r.status).toBe(200);
    await expect.poll(() => text(page, `verdict-${early}`), poll).toMatch(/Declined.*answered by.*human-2/);
    await expect.poll(() => visible(page, `badge-${child}`), poll).toBe(false);
  });

  it("answers a form and submits the content the schema asks for", async () => {
    const s = sid("conv_form");
    await session(s, { title: "Deploy" });
    const page = await open(`/#session=${s}`);
    await page.getByTestId(`session-${s}`).waitFor();
    await live(page);
    const id = await raise(s, {
      message: "Where should it deploy?",
      requestedSchema: {
        type: "object",
        properties: {
          target: { type: "string", title: "Target", enum: ["staging", "production"], description: "The cluster" },
          notify: { type: "boolean", title: "Notify the team" },
        },
        required: ["target"],
      },
    });
    const card = page.getByTestId(`card-${id}`);
    await card.waitFor();
    expect(await page.getByTestId(`accept-${id}`).textContent()).toBe("Accept");
    expect(await card.getByLabel("Target").getAttribute("required")).not.toBeNull();

    // The required choice is enforced in the page: nothing is sent without it.
    await page.getByTestId(`accept-${id}`).click();
    expect((await t.http(human, "GET", `/v1/elicitations/${id}`)).body.status).toBe("pending");

    await card.getByLabel("Target").selectOption("production");
    await card.getByLabel("Notify the team").check();
    await page.getByTestId(`accept-${id}`).click();
    await expect.poll(() => text(page, `verdict-${id}`), poll).toMatch(/Accepted/);
    expect(await text(page, `verdict-${id}`)).toContain("production");

    const e = await t.http(human, "GET", `/v1/elicitations/${id}`);
    expect(e.body.verdict).toMatchObject({ action: "accept", resolved_by: "human-1", content: { target: "production", notify: true } });
  });

  it("keeps the standalone approval page live and shows a resolved one's verdict", async () => {
    const s = sid("conv_alone");
    await session(s, { title: "Cleanup" });
    const id = await raise(s, { message: "Delete 14 pages?" });

    const page = await open(`/approval.html?elicitation=${id}`);
    await page.getByTestId(`card-${id}`).waitFor();
    expect(await text(page, `card-${id}`)).toContain("Delete 14 pages?");
    expect(page.url()).toContain(`elicitation=${id}`);
    expect(page.url()).not.toContain("token=");
    await live(page);
    const other = await t.token("human", "human-2");
    await t.http(other, "POST", `/v1/sessions/${s}/events`, { type: "approval", elicitation_id: id, action: "decline" });
    await expect.poll(() => text(page, `verdict-${id}`), poll).toMatch(/Declined.*answered by.*human-2/);
    expect(await page.getByTestId(`decline-${id}`).count()).toBe(0);

    // Opened cold once resolved: the verdict, nothing to answer.
    const later = await open(`/approval.html?elicitation=${id}`, { width: 390, height: 800 });
    await expect.poll(() => text(later, `verdict-${id}`), poll).toMatch(/Declined.*answered by.*human-2/);
    expect(await later.getByTestId(`accept-${id}`).count()).toBe(0);

    // The inbox card links to this page.
    const inbox = await open(`/#session=${s}`);
    const other2 = await raise(s, { message: "And the archive?" });
    await inbox.getByTestId(`card-${other2}`).waitFor();
    await inbox.getByTestId(`card-${other2}`).getByRole("link", { name: /open/i }).click();
    await inbox.waitForURL(/approval\.html\?elicitation=/);
    await inbox.getByTestId(`accept-${other2}`).waitFor();
  });

  it("keeps the keyboard's place when a card is answered: focus moves to its verdict, here or from elsewhere", async () => {
    const s = sid("conv_keys");
    await session(s, { title: "Keyboard" });
    const first = await raise(s, { message: "Restart the queue?" });
    const second = await raise(s, { message: "Drain the cache?" });
    const page = await open(`/#session=${s}`);
    await live(page);
    const focused = () => page.evaluate(() => document.activeElement?.getAttribute("data-testid") ?? document.activeElement?.tagName);

    await page.getByTestId(`accept-${first}`).press("Enter");
    await expect.poll(() => text(page, `verdict-${first}`), poll).toMatch(/Accepted/);
    expect(await focused()).toBe(`verdict-${first}`);
    // Tab goes on from where the human was: into the next card.
    await page.keyboard.press("Tab");
    expect(await page.getByTestId(`card-${second}`).evaluate((card) => card.contains(document.activeElement))).toBe(true);

    // Someone else answers the card the human is typing a reason in.
    await page.getByTestId(`reason-${second}`).focus();
    await t.http(await t.token("human", "human-2"), "POST", `/v1/sessions/${s}/events`, { type: "approval", elicitation_id: second, action: "decline" });
    await expect.poll(() => text(page, `verdict-${second}`), poll).toMatch(/Declined.*human-2/);
    expect(await focused()).toBe(`verdict-${second}`);

    // An answer that does not go out gives the focus back to the button it was given with.
    const third = await raise(s, { message: "Rotate the logs?" });
    await page.getByTestId(`card-${third}`).waitFor();
    await page.route("**/events", (route) => route.abort(), { times: 1 });
    await page.getByTestId(`decline-${third}`).press("Enter");
    await expect.poll(() => text(page, `card-${third}`), poll).toContain("Cannot reach Tollgate");
    expect(await focused()).toBe(`decline-${third}`);
  });

  it("shows the standing verdict when someone else answered first", async () => {
    const s = sid("conv_stale");
    await session(s, { title: "Stale tab" });
    const id = await raise(s, { message: "Rotate the keys?" });
    const page = await open(`/#session=${s}`, { noSocket: true });
    await page.getByTestId(`accept-${id}`).waitFor();

    const other = await t.token("human", "human-2");
    await t.http(other, "POST", `/v1/sessions/${s}/events`, { type: "approval", elicitation_id: id, action: "decline" });
    await page.getByTestId(`accept-${id}`).click();
    await expect.poll(() => text(page, `verdict-${id}`), poll).toMatch(/Already answered by human-2.*Declined/);
    expect((await t.http(human, "GET", `/v1/elicitations/${id}`)).body.verdict).toMatchObject({ action: "decline", resolved_by: "human-2" });
  });

  it("shows only the waiting sessions, with their ancestors for context, when asked to", async () => {
    const quiet = sid("conv_quiet");
    const root = sid("conv_ctx");
    const child = sid("conv_waiting");
    await session(quiet, { title: "Nothing to ask" });
    await session(root, { title: "Orchestrator" });
    await session(child, { parent_session_id: root, title: "worker" });
    await raise(child, { message: "Overwrite the cache?" });
    const page = await open("/");
    await page.getByTestId(`session-${quiet}`).waitFor();
    await live(page);
    await page.getByTestId("only-pending").check();
    await page.getByTestId(`session-${quiet}`).waitFor({ state: "detached" });
    expect(await page.locator(`li:has(> [data-testid="session-${root}"]) [data-testid="session-${child}"]`).count()).toBe(1);
    expect(await page.getByTestId(`session-${root}`).getAttribute("class")).toContain("context");
    // A session that starts waiting appears, live.
    await raise(quiet, { message: "Now there is something" });
    await expect.poll(() => text(page, `badge-${quiet}`), poll).toContain("1");
    // The choice is kept for the next visit.
    await page.reload();
    await page.getByTestId(`session-${child}`).waitFor();
    expect(await page.getByTestId("only-pending").isChecked()).toBe(true);
  });

  /** The inbox connections subscribed now. */
  const subscribers = async () => new Set((await t.scan()).flatMap((i: any) => (i.pk.S.startsWith("T#acme#SUBSCRIBERS") ? [i.connection_id.S] : [])));
  /** Closes, as API Gateway may, the socket of the page opened since `before`, and waits until the page sees it gone. */
  async function dropSocket(page: Page, before: Set<string>) {
    const [connectionId] = [...(await subscribers())].filter((id) => !before.has(id));
    const connections = new ApiGatewayManagementApiClient({ endpoint: t.runtime.httpUrl, region: "us-east-1", credentials: { accessKeyId: "local", secretAccessKey: "local" } });
    await connections.send(new DeleteConnectionCommand({ ConnectionId: connectionId }));
    connections.destroy();
    await page.locator('#conn[data-state="offline"]').waitFor();
  }

  it("counts each session's badge itself: no badge frame on its socket, and exact through a reconnect", async () => {
    const s = sid("conv_counted");
    await session(s, { title: "Counted" });
    const first = await raise(s, { message: "First?" });
    const page = await open("/");
    const received: { type?: string }[] = [];
    const sent: { action?: string; badges?: boolean }[] = [];
    page.on("websocket", (ws) => {
      ws.on("framereceived", (f) => received.push(JSON.parse(String(f.payload))));
      ws.on("framesent", (f) => sent.push(JSON.parse(String(f.payload))));
    });
    const before = await subscribers();
    await page.reload();
    await live(page);
    await expect.poll(() => text(page, `badge-${s}`), poll).toContain("1");
    const second = await raise(s, { message: "Second?" });
    await expect.poll(() => text(page, `badge-${s}`), poll).toContain("2");
    await t.http(human, "POST", `/v1/sessions/${s}/events`, { type: "approval", elicitation_id: first, action: "accept" });
    await expect.poll(() => text(page, `badge-${s}`), poll).toContain("1");

    // The socket drops; while it is down the second resolves and a third is raised: the tab hears neither.
    await dropSocket(page, before);
    await t.http(human, "POST", `/v1/sessions/${s}/events`, { type: "approval", elicitation_id: second, action: "decline" });
    const third = await raise(s, { message: "Third?" });
    await live(page);
    await expect.poll(() => text(page, `badge-${s}`), poll).toContain("1");
    await t.http(human, "POST", `/v1/sessions/${s}/events`, { type: "approval", elicitation_id: third, action: "accept" });
    await expect.poll(() => visible(page, `badge-${s}`), poll).toBe(false);

    const subscribes = sent.filter((f) => f.action === "subscribe");
    expect(subscribes.length).toBeGreaterThanOrEqual(2);
    for (const frame of subscribes) expect(frame.badges).toBe(false);
    expect(received.filter((f) => f.type === "response.elicitation_resolved").length).toBeGreaterThanOrEqual(2);
    expect(received.filter((f) => f.type === "session.badge")).toEqual([]);
  });

  it("hears a verdict it gave in the reply: no resolved frame for it, the card and the badge as exact", async () => {
    const s = sid("conv_answered_here");
    await session(s, { title: "Answered here" });
    const mine = await raise(s, { message: "Mine?" });
    const theirs = await raise(s, { message: "Theirs?" });
    const page = await open(`/#session=${s}`);
    const received: { type?: string; elicitation_id?: string; connection_id?: string }[] = [];
    const verdicts: { elicitation_id?: string; answering_connection_id?: string }[] = [];
    page.on("websocket", (ws) => ws.on("framereceived", (f) => received.push(JSON.parse(String(f.payload)))));
    page.on("request", (r) => r.method() === "POST" && r.url().endsWith("/events") && verdicts.push(r.postDataJSON()));
    await page.reload();
    await live(page);
    await expect.poll(() => text(page, `badge-${s}`), poll).toContain("2");

    await page.getByTestId(`accept-${mine}`).click();
    await expect.poll(() => text(page, `verdict-${mine}`), poll).toMatch(/Accepted.*answered by.*human-1/);
    await expect.poll(() => text(page, `badge-${s}`), poll).toContain("1");
    // Another human's verdict comes as an event, from a later stream batch than this tab's own.
    await t.http(await t.token("human", "human-2"), "POST", `/v1/sessions/${s}/events`, { type: "approval", elicitation_id: theirs, action: "decline" });
    await expect.poll(() => visible(page, `badge-${s}`), poll).toBe(false);
    await expect.poll(() => text(page, `verdict-${theirs}`), poll).toMatch(/Declined.*answered by.*human-2/);

    const resolvedFrames = received.filter((f) => f.type === "response.elicitation_resolved").map((f) => f.elicitation_id);
    expect(resolvedFrames).toEqual([theirs]);
    const subscribed = received.filter((f) => f.type === "subscribed");
    expect(verdicts).toEqual([expect.objectContaining({ elicitation_id: mine, answering_connection_id: subscribed.at(-1)?.connection_id })]);
    expect(subscribed.at(-1)?.connection_id).toEqual(expect.any(String));
  });

  it("takes a session off the waiting ones when it stopped waiting while the socket was down", async () => {
    const s = sid("conv_quieted");
    await session(s, { title: "Quieted" });
    const id = await raise(s, { message: "Still needed?" });
    const before = await subscribers();
    const page = await open("/");
    await live(page);
    await page.getByTestId("only-pending").check();
    await expect.poll(() => text(page, `badge-${s}`), poll).toContain("1");
    await dropSocket(page, before);
    await t.http(human, "POST", `/v1/sessions/${s}/events`, { type: "approval", elicitation_id: id, action: "decline" });
    await live(page);
    await page.getByTestId(`session-${s}`).waitFor({ state: "detached" });
  });

  // 101 raises one after another: about 18 s on a quiet machine, so the budget leaves room for a busy one.
  it("reads again a session with more pending than its item lists ids, and shows its whole count", { timeout: 180_000 }, async () => {
    const s = sid("conv_swamped");
    await session(s, { title: "Swamped" });
    const ids: string[] = [];
    for (let i = 0; i < 101; i++) ids.push(await raise(s, { message: `Step ${i}?` }));
    const page = await open("/");
    await live(page);
    await expect.poll(() => text(page, `badge-${s}`), poll).toContain("101");
    await t.http(human, "POST", `/v1/sessions/${s}/events`, { type: "approval", elicitation_id: ids[0], action: "accept" });
    await expect.poll(() => text(page, `badge-${s}`), poll).toContain("100");
    await raise(s, { message: "One more?" });
    await expect.poll(() => text(page, `badge-${s}`), poll).toContain("101");
    await t.http(runner, "POST", `/v1/sessions/${s}/cancel`, {});
    await expect.poll(() => visible(page, `badge-${s}`), poll).toBe(false);
  });

  it("asks for a token when there is none", async () => {
    const context = await inbox.context();
    const page = await context.newPage();
    await page.goto(`${t.runtime.httpUrl}/`);
    await page.getByLabel(/paste a human token/i).fill(human);
    await page.getByRole("button", { name: "Use this token" }).click();
    await live(page);
    expect(await page.locator("#who").textContent()).toContain("human-1");
  });

  it("asks for a token again once its token expired: at the live socket's next frame, and at a reconnect", async () => {
    /** A fresh browser signed in with a token that expires a minute from now on the runtime's clock. */
    async function signedInBriefly(sub: string) {
      const page = await (await inbox.context()).newPage();
      page.setDefaultTimeout(10_000);
      page.on("pageerror", (e) => inbox.pageErrors.push(e.message));
      await page.clock.install();
      await page.goto(`${t.runtime.httpUrl}/?token=${await mintToken(SECRET, { sub, tenant: "acme", role: "human" }, 60, t.clock.now())}`);
      await live(page);
      return page;
    }
    const asked = async (page: Page) => {
      await page.locator("#signin").waitFor();
      expect(await page.locator("#signin").textContent()).toContain("expired");
    };

    // The socket's next frame (its ping) is refused once the token has expired.
    const pinging = await signedInBriefly("human-brief-1");
    await t.clock.advance(61_000);
    await pinging.clock.fastForward("05:00");
    await asked(pinging);

    // A socket that drops after the token expired is refused when it connects again.
    const before = await subscribers();
    const dropped = await signedInBriefly("human-brief-2");
    await t.clock.advance(61_000);
    await dropSocket(dropped, before);
    await asked(dropped);
  });
});
