/**
 * The inbox's browser notifications in Chromium against the local runtime: the top bar offers them
 * once (and not at all where they are blocked), and a new prompt is shown by the service worker while
 * the tab is hidden (another tab in front), none while it is visible, and none lost when showing and
 * withdrawing cross; the permission is granted through the browser's own permission mechanism, and
 * what was shown is read back with `registration.getNotifications()`.
 */
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { noBrowser, poll, sid } from "./support/inbox.js";
import { startTabs, type Tabs } from "./support/tabs.js";
import { startTollgate, type Harness } from "./support/tollgate.js";

/** The inbox's `notify.js`, as the page itself loaded it (a string, so that vitest leaves the page's `import()` alone). */
const notifyModule = `import(new URL("notify.js", location.href).href)`;
/**
 * What the page's service worker registration has on show, by the browser's own account, read through
 * the inbox's own module: its reads wait for a notification being shown, which a read in between
 * would make Chromium forget.
 */
const shown = (page: Page): Promise<{ title: string; body: string; tag: string; data: unknown }[]> =>
  page.evaluate(`${notifyModule}
    .then((notify) => notify.shownPrompts())
    .then((on) => on.map((n) => ({ title: n.title, body: n.body, tag: n.tag, data: n.data })))`);
const visibility = (page: Page) => page.evaluate(() => document.visibilityState);

describe.skipIf(noBrowser)("inbox notifications", () => {
  let t: Harness;
  let tabs: Tabs;
  let human: string;
  let runner: string;
  /** Uncaught errors, and the inbox's own warnings (a notification it could not show says why there). */
  const pageErrors: string[] = [];

  beforeAll(async () => {
    t = await startTollgate();
    tabs = await startTabs();
    human = await t.token("human", "human-1");
    runner = await t.token("runner", "runner-1");
  });
  afterAll(async () => {
    await tabs?.close();
    await t?.stop();
  });
  afterEach(() => {
    expect(pageErrors).toEqual([]);
  });

  const inboxAt = async (page: Page, session: string) => {
    page.on("pageerror", (e) => pageErrors.push(e.message));
    page.on("console", (m) => {
      if (m.type() !== "log" && m.text().startsWith("tollgate")) pageErrors.push(m.text());
    });
    await page.goto(`${t.runtime.httpUrl}/?token=${human}#session=${session}`);
    await page.locator("#conn", { hasText: "Live" }).waitFor();
  };
  const raise = async (session: string, message: string) => {
    const r = await t.http(runner, "POST", `/v1/sessions/${session}/events`, { type: "response.elicitation_request", params: { message } });
    expect(r.status).toBe(201);
    return r.body.elicitation_id as string;
  };

  it("offers notifications in the top bar until asked once, then never again", async () => {
    const context = await tabs.browser.newContext();
    const page = await context.newPage();
    const s = sid("conv_offer");
    await t.http(runner, "PUT", `/v1/sessions/${s}`, {});
    await inboxAt(page, s);
    expect(await page.evaluate(() => Notification.permission)).toBe("default");
    const offer = page.getByTestId("notify-on");
    await offer.waitFor();
    expect(await offer.textContent()).toBe("Turn on notifications");
    await offer.click();
    await offer.waitFor({ state: "hidden" });
    await page.reload();
    await page.locator("#conn", { hasText: "Live" }).waitFor();
    expect(await offer.isVisible()).toBe(false);
    await context.close();
  });

  it("offers nothing where notifications are blocked", async () => {
    const cdp = await tabs.browser.newBrowserCDPSession();
    await cdp.send("Browser.setPermission", { permission: { name: "notifications" }, setting: "denied", origin: t.runtime.httpUrl });
    const s = sid("conv_blocked");
    await t.http(runner, "PUT", `/v1/sessions/${s}`, {});
    const page = await tabs.tab();
    await inboxAt(page, s);
    expect(await page.evaluate(() => Notification.permission)).toBe("denied");
    expect(await page.getByTestId("notify-on").isVisible()).toBe(false);
    await page.close();
    await tabs.context.clearPermissions();
  });

  it("shows a new prompt while the tab is hidden, none while it is visible, and withdraws it once resolved", async () => {
    const s = sid("conv_notify");
    await t.http(runner, "PUT", `/v1/sessions/${s}`, { title: "Release rollout" });
    await tabs.context.grantPermissions(["notifications"], { origin: t.runtime.httpUrl });
    const inbox = await tabs.tab();
    await inboxAt(inbox, s);
    expect(await inbox.evaluate(() => Notification.permission)).toBe("granted");
    expect(await inbox.getByTestId("notify-on").isVisible()).toBe(false);
    expect(await shown(inbox)).toEqual([]);

    // In front: the card is all the human needs.
    expect(await visibility(inbox)).toBe("visible");
    const seen = await raise(s, "Approve the visible one?");
    await inbox.getByTestId(`card-${seen}`).waitFor();

    // Another tab in front: the inbox is hidden, and the next prompt comes as a notification.
    const other = await tabs.tab();
    await other.goto(`${t.runtime.httpUrl}/approval.html`);
    await expect.poll(() => visibility(inbox), poll).toBe("hidden");
    const id = await raise(s, "Deploy release 42 to prod?");
    // The hidden inbox heard it (its card is there), then showed it.
    await expect.poll(() => inbox.getByTestId(`card-${id}`).count(), poll).toBe(1);
    await expect.poll(() => shown(inbox), poll).toHaveLength(1);
    expect(await shown(inbox)).toEqual([
      { title: "Approval needed · Release rollout", body: "Deploy release 42 to prod?", tag: id, data: { url: `${t.runtime.httpUrl}/approval.html?elicitation=${id}` } },
    ]);

    // Answered anywhere: the notification goes.
    const answered = await t.http(human, "POST", `/v1/sessions/${s}/events`, { type: "approval", elicitation_id: id, action: "accept" });
    expect(answered.status).toBe(200);
    await expect.poll(() => shown(inbox), poll).toEqual([]);

    // Back in front: prompts show as cards only.
    await inbox.bringToFront();
    await expect.poll(() => visibility(inbox), poll).toBe("visible");
    const later = await raise(s, "Approve while looking?");
    await inbox.getByTestId(`card-${later}`).waitFor();
    await other.bringToFront();
    await expect.poll(() => visibility(inbox), poll).toBe("hidden");
    const last = await raise(s, "One more while away?");
    await expect.poll(async () => (await shown(inbox)).map((n) => n.tag), poll).toEqual([last]);
  });

  it("keeps every prompt still waiting on show, and none withdrawn, when showing and withdrawing cross", async () => {
    await tabs.context.grantPermissions(["notifications"], { origin: t.runtime.httpUrl });
    const s = sid("conv_crossing");
    await t.http(runner, "PUT", `/v1/sessions/${s}`, {});
    const inbox = await tabs.tab();
    await inboxAt(inbox, s);
    const other = await tabs.tab();
    await expect.poll(() => visibility(inbox), poll).toBe("hidden");

    // The inbox's own module, driven at once in the hidden tab: live events can come this close together.
    const prompts = (from: string) =>
      Array.from({ length: 20 }, (_, i) => ({ type: "response.elicitation_request", session_id: s, elicitation_id: `${from}-${i}`, params: { message: `${from} ${i}?` } }));
    const crossing = (show: unknown[], withdraw: string[]) =>
      inbox.evaluate(
        `${notifyModule}.then((notify) =>
          Promise.all([...${JSON.stringify(show)}.map((ev) => notify.notifyPrompt(ev, "Crossing")), ...${JSON.stringify(withdraw)}.map((id) => notify.withdrawPrompt(id))]))`,
      );
    const onShow = async () => (await shown(inbox)).map((n) => n.tag).filter((tag) => tag.startsWith(s));
    // Each round shows twenty new prompts while withdrawing the twenty of the round before (the first has none).
    let before: string[] = [];
    for (const round of [1, 2, 3, 4]) {
      const show = prompts(`${s}-round${round}`);
      await crossing(show, before);
      before = show.map((p) => p.elicitation_id);
      expect((await onShow()).sort()).toEqual([...before].sort());
    }
    await other.close();
    await inbox.close();
  });
});
