/**
 * Approval links in headless Chromium against the real local runtime: a browser that holds nothing
 * but the link (no token, no sign-in, empty storage) opens the standalone page, sees the prompt and
 * answers it, and the waiting runner gets the verdict; a changed or expired link shows why it cannot
 * be used and answers nothing.
 */
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { noBrowser, poll, sid, text, useInbox, type Inbox } from "./support/inbox.js";

describe.skipIf(noBrowser)("the standalone page opened from an approval link", () => {
  const started = useInbox();

  async function share(inbox: Inbox, id: string, forWhom: string): Promise<string> {
    const r = await inbox.t.http(inbox.human, "POST", `/v1/elicitations/${id}/link`, { for: forWhom });
    expect(r.status).toBe(201);
    return r.body.url;
  }

  /** A fresh browser with nothing in it, on this address. */
  async function openBare(inbox: Inbox, url: string): Promise<Page> {
    const page = await (await inbox.context()).newPage();
    page.setDefaultTimeout(10_000);
    page.on("pageerror", (e) => inbox.pageErrors.push(e.message));
    await page.goto(url);
    return page;
  }

  it("answers with only the link: the runner gets the verdict, the record says via link", async () => {
    const inbox = started();
    const { t } = inbox;
    const s = sid("link_ok");
    const runner = await t.runner({ sub: "runner-1", sessions: [{ session_id: s, title: "Release" }] });
    const id = sid("el_link");
    const verdict = runner.elicit({
      sessionId: s,
      elicitationId: id,
      params: { message: "Tag v2.0?", requestedSchema: { type: "object", properties: { tag: { type: "string", title: "Tag" } }, required: ["tag"] } },
    });
    await expect.poll(async () => (await t.http(inbox.human, "GET", `/v1/elicitations/${id}`)).status, poll).toBe(200);
    const url = await share(inbox, id, "release-manager");
    const page = await openBare(inbox, url);
    await page.getByTestId(`card-${id}`).waitFor();
    expect(await page.locator("#signin").isVisible()).toBe(false);
    // The holder has no sign-in, so the page offers no way back to the inbox's sessions.
    expect(await page.getByText("All sessions").isVisible()).toBe(false);
    expect(await text(page, `card-${id}`)).toContain("Tag v2.0?");
    await page
      .getByTestId(`card-${id}`)
      .getByLabel(/^Tag( \*)?$/)
      .fill("v2.0.0");
    await page.getByTestId(`reason-${id}`).fill("release day");
    await page.getByTestId(`accept-${id}`).click();
    await expect(verdict).resolves.toMatchObject({ action: "accept", content: { tag: "v2.0.0" }, message: "release day", resolved_by: "release-manager" });
    await expect.poll(() => text(page, `verdict-${id}`), poll).toMatch(/Accepted.*through this link/);
    // The card dates the verdict by the server's clock (the reply's), not the browser's.
    const standing = (await t.http(inbox.human, "GET", `/v1/elicitations/${id}`)).body.verdict;
    expect(await page.getByTestId(`verdict-${id}`).locator("time").getAttribute("datetime")).toBe(standing.resolved_at);
    // The page kept no credential: the link lives in the address's fragment only.
    expect(await page.evaluate(() => Object.keys(localStorage).filter((k) => k.includes("token")))).toEqual([]);
    const history = await t.http(inbox.human, "GET", `/v1/history?session_id=${s}`);
    expect(history.body.items[0].verdict).toMatchObject({ via: "link", resolved_by: "release-manager", content: { tag: "v2.0.0" } });
    // Opened again, it shows the outcome and no form.
    const again = await openBare(inbox, url);
    await expect.poll(() => again.getByTestId(`card-${id}`).getAttribute("data-state"), poll).toBe("resolved");
    expect(await again.getByTestId(`accept-${id}`).count()).toBe(0);
  });

  it("the inbox shares a link from a card; a bare browser answers with it", async () => {
    const inbox = started();
    const { t } = inbox;
    const s = sid("link_share");
    await inbox.session(s, { title: "Share" });
    const id = await inbox.raise(s, { message: "Merge the hotfix?" });
    const page = await inbox.open(`/#session=${s}`);
    await page.getByTestId(`share-${id}`).click();
    const url = await page.getByTestId(`shared-${id}`).inputValue();
    expect(new URL(url).searchParams.get("elicitation")).toBe(id);
    const bare = await openBare(inbox, url);
    await bare.getByTestId(`decline-${id}`).click();
    await expect.poll(async () => (await t.http(inbox.human, "GET", `/v1/elicitations/${id}`)).body.verdict?.resolved_by, poll).toBe("human-1");
    expect((await t.http(inbox.human, "GET", `/v1/history?session_id=${s}`)).body.items[0].verdict.via).toBe("link");
    // The bare page's card, answering with the link, offers no link of its own.
    expect(await bare.getByTestId(`share-${id}`).count()).toBe(0);
  });

  it("a changed link, or one past its deadline, says it cannot be used and answers nothing", async () => {
    const inbox = started();
    const { t } = inbox;
    const s = sid("link_bad");
    await inbox.session(s);
    const id = await inbox.raise(s, { message: "Rotate the keys?" });
    const url = new URL(await share(inbox, id, "ops"));
    const token = new URLSearchParams(url.hash.slice(1)).get("link")!;
    url.hash = `link=${token.slice(0, -3)}${token.endsWith("abc") ? "xyz" : "abc"}`;
    const page = await openBare(inbox, url.href);
    await expect.poll(() => page.getByRole("alert").textContent(), poll).toContain("cannot be used");
    expect(await page.getByTestId(`card-${id}`).count()).toBe(0);
    expect((await t.http(inbox.human, "GET", `/v1/elicitations/${id}`)).body.status).toBe("pending");

    const due = await t.http(inbox.runner, "POST", `/v1/sessions/${s}/events`, { type: "response.elicitation_request", params: { message: "Soon due?" }, timeout_seconds: 60 });
    const late = await share(inbox, due.body.elicitation_id, "ops");
    await t.elapse(61_000);
    const expired = await openBare(inbox, late);
    await expect.poll(() => expired.getByRole("alert").textContent(), poll).toContain("expired");
  });
});
