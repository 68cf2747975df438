/**
 * Reasons and decisions in the approval inbox, in headless Chromium against the real local runtime:
 * a decline with a reason reaches the runner, the card and the session's recent decisions; a card
 * answered elsewhere tells the reason given there; the standalone page takes a reason too.
 */
import { describe, expect, it } from "vitest";
import { live, noBrowser, poll, sid, text, useInbox } from "./support/inbox.js";

describe.skipIf(noBrowser)("reasons and decisions in the inbox", () => {
  const started = useInbox();

  it("declines with a reason: the runner hears it, the card says it, and it appears in the session's decisions", async () => {
    const inbox = started();
    const { t } = inbox;
    const root = sid("dec_root");
    const child = sid("dec_child");
    const runner = await t.runner({
      sub: "runner-1",
      sessions: [
        { session_id: root, title: "Release" },
        { session_id: child, parent_session_id: root, title: "builder:Push" },
      ],
    });
    const verdict = runner.elicit({ sessionId: child, params: { message: "Push to main on a Friday?" } });
    const page = await inbox.open(`/#session=${root}`);
    await live(page);
    const card = page.locator('[data-testid^="card-"]', { hasText: "Push to main on a Friday?" });
    await card.waitFor(poll);
    const id = (await card.getAttribute("data-testid"))!.slice("card-".length);
    await expect.poll(() => text(page, "decisions"), poll).toContain("No decisions yet.");

    await page.getByTestId(`reason-${id}`).fill("  not on Fridays  ");
    await page.getByTestId(`decline-${id}`).click();
    await expect(verdict).resolves.toMatchObject({ action: "decline", reason: "answered", message: "not on Fridays" });
    await expect.poll(() => text(page, `verdict-${id}`), poll).toMatch(/Declined.*answered by.*human-1.*not on Fridays/);
    await expect.poll(() => page.getByTestId(`decision-${id}`).count(), poll).toBe(1);
    const decision = await text(page, `decision-${id}`);
    expect(decision).toMatch(/Declined.*Push to main on a Friday\?/);
    expect(decision).toContain("human-1");
    expect(decision).toContain("not on Fridays");

    // The history the page shows is the server's.
    const listed = await t.http(inbox.human, "GET", `/v1/history?session_id=${root}&descendants=true`);
    expect(listed.body.items.map((e: any) => [e.elicitation_id, e.verdict.message, e.verdict.via])).toEqual([[id, "not on Fridays", "token"]]);
  });

  it("takes Enter in the reason field as no verdict: the human picks Decline or Approve", async () => {
    const inbox = started();
    const s = sid("dec_enter");
    await inbox.session(s, { title: "Enter" });
    const id = await inbox.raise(s, { message: "Force-push the release branch?" });
    const page = await inbox.open(`/#session=${s}`);
    await live(page);
    const posted: string[] = [];
    page.on("request", (r) => r.method() === "POST" && r.url().endsWith("/events") && posted.push(r.postDataJSON().action));
    await page.getByTestId(`reason-${id}`).fill("history would be lost");
    await page.getByTestId(`reason-${id}`).press("Enter");
    await page.getByTestId(`decline-${id}`).click();
    await expect.poll(() => text(page, `verdict-${id}`), poll).toMatch(/Declined.*history would be lost/);
    expect(posted).toEqual(["decline"]);
    expect((await inbox.t.http(inbox.human, "GET", `/v1/elicitations/${id}`)).body.verdict).toMatchObject({ action: "decline", message: "history would be lost" });
  });

  it("a card answered elsewhere tells the reason given there, and so does the standalone page", async () => {
    const inbox = started();
    const { t } = inbox;
    const s = sid("dec_else");
    await inbox.session(s, { title: "Deploy" });
    const page = await inbox.open(`/#session=${s}`);
    await page.getByTestId(`session-${s}`).waitFor();
    await live(page);
    const id = await inbox.raise(s, { message: "Deploy build 42?" });
    await page.getByTestId(`card-${id}`).waitFor();
    const standalone = await inbox.open(`/approval.html?elicitation=${id}`);
    await standalone.getByTestId(`card-${id}`).waitFor();
    await live(standalone);

    const other = await t.token("human", "human-2");
    const given = { type: "approval", elicitation_id: id, action: "accept", message: "ship it, I watch the graphs" };
    expect((await t.http(other, "POST", `/v1/sessions/${s}/events`, given)).status).toBe(200);
    for (const p of [page, standalone]) {
      await expect.poll(() => text(p, `verdict-${id}`), poll).toMatch(/Accepted.*answered by.*human-2.*ship it, I watch the graphs/);
    }
    await expect.poll(() => text(page, `decision-${id}`), poll).toContain("ship it, I watch the graphs");

    // The standalone page takes a reason with its verdict.
    const next = await inbox.raise(s, { message: "Roll back build 41?" });
    const single = await inbox.open(`/approval.html?elicitation=${next}`);
    await single.getByTestId(`card-${next}`).waitFor();
    await single.getByTestId(`reason-${next}`).fill("41 is fine");
    await single.getByTestId(`decline-${next}`).click();
    await expect.poll(() => text(single, `verdict-${next}`), poll).toMatch(/Declined.*41 is fine/);
    expect((await t.http(inbox.human, "GET", `/v1/elicitations/${next}`)).body.verdict).toMatchObject({ action: "decline", message: "41 is fine", resolved_by: "human-1" });
  });
});

describe.skipIf(noBrowser)("an inbox where the deployment keeps no history", () => {
  const started = useInbox({ settings: { TOLLGATE_HISTORY: "off" } });

  it("says so where the decisions would be, before and after a verdict, and answers as ever", async () => {
    const inbox = started();
    const s = sid("dec_off");
    await inbox.session(s, { title: "No history" });
    const page = await inbox.open(`/#session=${s}`);
    await live(page);
    await expect.poll(() => text(page, "decisions"), poll).toBe("This deployment keeps no history of decisions.");
    const id = await inbox.raise(s, { message: "Merge without a record?" });
    await page.getByTestId(`reason-${id}`).fill("keep a record");
    await page.getByTestId(`decline-${id}`).click();
    await expect.poll(() => text(page, `verdict-${id}`), poll).toMatch(/Declined.*keep a record/);
    expect(await page.getByTestId("no-history").count()).toBe(1);
    expect(await page.getByTestId(`decision-${id}`).count()).toBe(0);
    expect((await inbox.t.http(inbox.human, "GET", "/v1/history")).status).toBe(404);
  });
});
