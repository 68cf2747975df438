/**
 * The inbox's forms in headless Chromium against the real local runtime: each field kind of the
 * MCP form grammar gets its control and its default, what does not fit is refused in the page, what
 * fits is sent as it should be; and a URL-mode request shows its address and asks for consent.
 */
import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { live, noBrowser, poll, sid, text, useInbox } from "./support/inbox.js";

const everyKind = {
  type: "object",
  properties: {
    name: { type: "string", title: "Name", description: "As on the badge", minLength: 2, maxLength: 12, default: "Ada" },
    email: { type: "string", title: "Email", format: "email" },
    homepage: { type: "string", title: "Homepage", format: "uri" },
    day: { type: "string", title: "Day", format: "date", default: "2026-12-24" },
    at: { type: "string", title: "Start", format: "date-time" },
    replicas: { type: "integer", title: "Replicas", minimum: 1, maximum: 9, default: 3 },
    ratio: { type: "number", title: "Ratio", minimum: 0, maximum: 1 },
    notify: { type: "boolean", title: "Notify", default: true },
    env: { type: "string", title: "Environment", enum: ["staging", "production"], default: "staging" },
    region: {
      type: "string",
      title: "Region",
      oneOf: [
        { const: "eu-west-1", title: "Ireland" },
        { const: "us-east-1", title: "Virginia" },
      ],
    },
    size: { type: "string", title: "Size", enum: ["s", "m", "l"], enumNames: ["Small", "Medium", "Large"] },
    tags: { type: "array", title: "Tags", minItems: 1, maxItems: 2, items: { type: "string", enum: ["red", "green", "blue"] }, default: ["red"] },
    teams: {
      type: "array",
      title: "Teams",
      items: {
        anyOf: [
          { const: "ops", title: "Operations" },
          { const: "sec", title: "Security" },
        ],
      },
    },
  },
  required: ["name", "email", "region", "tags"],
};

describe.skipIf(noBrowser)("the inbox's forms in a browser", () => {
  const inbox = useInbox();

  /** A session open in the inbox, live, and an elicitation raised in it: the page and its card. */
  async function cardFor(params: Record<string, unknown>, path = "/") {
    const s = sid("conv_forms");
    await inbox().session(s, { title: "Forms" });
    const page = await inbox().open(`${path}#session=${s}`);
    await page.getByTestId(`session-${s}`).waitFor();
    await live(page);
    const id = await inbox().raise(s, params);
    const card = page.getByTestId(`card-${id}`);
    await card.waitFor();
    return { page, card, id };
  }
  const status = async (id: string) => (await inbox().t.http(inbox().human, "GET", `/v1/elicitations/${id}`)).body;
  const attr = (l: Locator, name: string) => l.getAttribute(name);
  const valid = (l: Locator) => l.evaluate((el: HTMLInputElement) => el.validity.valid);
  const message = (l: Locator) => l.evaluate((el: HTMLInputElement) => el.validationMessage);

  it("gives each field kind its control, with the form's defaults filled in", async () => {
    const { card, id } = await cardFor({ message: "Configure the rollout", requestedSchema: everyKind });
    const name = card.getByLabel(/^Name( \*)?$/);
    expect(await attr(name, "type")).toBe("text");
    expect(await name.inputValue()).toBe("Ada");
    expect([await attr(name, "minlength"), await attr(name, "maxlength"), await attr(name, "required")]).toEqual(["2", "12", ""]);
    expect(await card.getByText("As on the badge").isVisible()).toBe(true);
    expect(await attr(card.getByLabel(/^Email( \*)?$/), "type")).toBe("email");
    expect(await attr(card.getByLabel(/^Homepage( \*)?$/), "type")).toBe("url");
    expect(await attr(card.getByLabel(/^Day( \*)?$/), "type")).toBe("date");
    expect(await card.getByLabel(/^Day( \*)?$/).inputValue()).toBe("2026-12-24");
    expect(await attr(card.getByLabel(/^Start( \*)?$/), "type")).toBe("datetime-local");
    const replicas = card.getByLabel(/^Replicas( \*)?$/);
    expect([await attr(replicas, "type"), await attr(replicas, "min"), await attr(replicas, "max"), await attr(replicas, "step")]).toEqual(["number", "1", "9", "1"]);
    expect(await replicas.inputValue()).toBe("3");
    expect(await attr(card.getByLabel(/^Ratio( \*)?$/), "step")).toBe("any");
    expect(await card.getByLabel(/^Notify( \*)?$/).isChecked()).toBe(true);
    expect(await card.getByLabel(/^Environment( \*)?$/).inputValue()).toBe("staging");
    expect(
      await card
        .getByLabel(/^Region( \*)?$/)
        .locator("option")
        .allTextContents(),
    ).toEqual(["Choose…", "Ireland", "Virginia"]);
    expect(
      await card
        .getByLabel(/^Size( \*)?$/)
        .locator("option")
        .allTextContents(),
    ).toEqual(["—", "Small", "Medium", "Large"]);
    const tags = card.getByRole("group", { name: /Tags/ });
    expect(await tags.textContent()).toContain("pick at least 1, at most 2");
    expect(await tags.getByRole("checkbox").count()).toBe(3);
    expect(await tags.getByLabel(/^red( \*)?$/).isChecked()).toBe(true);
    expect(await tags.getByLabel(/^green( \*)?$/).isChecked()).toBe(false);
    expect(
      await card
        .getByRole("group", { name: /Teams/ })
        .getByLabel(/^Operations( \*)?$/)
        .isChecked(),
    ).toBe(false);
    expect((await status(id)).status).toBe("pending");
  });

  it("sends the defaults as they stand when the human changes nothing", async () => {
    const defaults = {
      type: "object",
      properties: Object.fromEntries(["name", "day", "replicas", "notify", "env", "tags"].map((k) => [k, everyKind.properties[k as keyof typeof everyKind.properties]])),
      required: ["name", "tags"],
    };
    const { page, id } = await cardFor({ message: "As proposed?", requestedSchema: defaults });
    await page.getByTestId(`accept-${id}`).click();
    await expect.poll(async () => (await status(id)).status, poll).toBe("resolved");
    expect((await status(id)).verdict.content).toEqual({ name: "Ada", day: "2026-12-24", replicas: 3, notify: true, env: "staging", tags: ["red"] });
  });

  it("refuses what does not fit in the page, then sends what does", async () => {
    const { page, card, id } = await cardFor({ message: "Configure the rollout", requestedSchema: everyKind });
    const accept = page.getByTestId(`accept-${id}`);
    const posted: string[] = [];
    page.on("request", (r) => {
      if (r.method() === "POST") posted.push(r.url());
    });
    const refused = async (field: Locator, says: RegExp) => {
      await accept.click();
      expect(await valid(field)).toBe(false);
      expect(await message(field)).toMatch(says);
      expect(posted).toEqual([]); // refused in the page: nothing was sent
      expect((await status(id)).status).toBe("pending");
    };
    await card.getByLabel(/^Region( \*)?$/).selectOption("us-east-1");

    // Required and empty: the browser's own check.
    await refused(card.getByLabel(/^Email( \*)?$/), /.+/);
    await card.getByLabel(/^Email( \*)?$/).fill("grace");
    await refused(card.getByLabel(/^Email( \*)?$/), /@/);
    await card.getByLabel(/^Email( \*)?$/).fill("grace@example.org");

    await card.getByLabel(/^Name( \*)?$/).fill("G");
    await refused(card.getByLabel(/^Name( \*)?$/), /2/);
    await card.getByLabel(/^Name( \*)?$/).fill("Grace");

    await card.getByLabel(/^Homepage( \*)?$/).fill("example.org");
    await refused(card.getByLabel(/^Homepage( \*)?$/), /.+/);
    await card.getByLabel(/^Homepage( \*)?$/).fill("https://example.org/grace");

    await card.getByLabel(/^Replicas( \*)?$/).fill("12");
    await refused(card.getByLabel(/^Replicas( \*)?$/), /9/);
    await card.getByLabel(/^Replicas( \*)?$/).fill("2.5");
    await refused(card.getByLabel(/^Replicas( \*)?$/), /.+/);
    await card.getByLabel(/^Replicas( \*)?$/).fill("4");

    const tags = card.getByRole("group", { name: /Tags/ });
    await tags.getByLabel(/^red( \*)?$/).uncheck();
    await refused(tags.getByLabel(/^red( \*)?$/), /Pick at least 1/);
    for (const c of ["red", "green", "blue"]) await tags.getByLabel(c).check();
    await refused(tags.getByLabel(/^red( \*)?$/), /Pick at most 2/);
    await tags.getByLabel(/^red( \*)?$/).uncheck();

    await card.getByLabel(/^Start( \*)?$/).fill("2026-12-24T18:30");
    await card.getByLabel(/^Ratio( \*)?$/).fill("0.25");
    await card.getByLabel(/^Size( \*)?$/).selectOption("m");
    await card
      .getByRole("group", { name: /Teams/ })
      .getByLabel(/^Security( \*)?$/)
      .check();
    await card.getByLabel(/^Notify( \*)?$/).uncheck();
    await accept.click();
    await expect.poll(() => text(page, `verdict-${id}`), poll).toMatch(/Accepted/);
    expect(posted).toHaveLength(1);

    const at = await page.evaluate(() => new Date("2026-12-24T18:30").toISOString());
    expect((await status(id)).verdict.content).toEqual({
      name: "Grace",
      email: "grace@example.org",
      homepage: "https://example.org/grace",
      day: "2026-12-24",
      at,
      replicas: 4,
      ratio: 0.25,
      notify: false,
      env: "staging",
      region: "us-east-1",
      size: "m",
      tags: ["green", "blue"],
      teams: ["sec"],
    });
    // The verdict shows choices by their titles.
    const shown = await text(page, `verdict-${id}`);
    expect(shown).toContain("Virginia");
    expect(shown).toContain("Medium");
    expect(shown).toContain("green, blue");
    expect(shown).toContain("Security");
  });

  describe("URL mode", () => {
    const url = "https://auth.example.com/authorize?client_id=tollgate&scope=repo%20read&state=9f1c#consent";
    /** Every request a page makes to the address it shows (there must be none). */
    const watch = (page: Page) => {
      const seen: string[] = [];
      page.on("request", (r) => {
        if (r.url().includes("example.com")) seen.push(r.url());
      });
      return seen;
    };

    it("shows the full address and where it leads; consenting is accepting, and the page never loads it", async () => {
      const { page, card, id } = await cardFor({ mode: "url", message: "Sign in to the issue tracker", url, elicitationId: "mcp-7" });
      const seen = watch(page);
      expect(await card.locator(".url code").textContent()).toBe(url);
      expect(await card.locator(".host").textContent()).toBe("auth.example.com");
      expect(await card.textContent()).toContain("Asks you to open a page on auth.example.com:");
      expect(await card.textContent()).not.toContain("not encrypted");
      expect(await card.getByRole("link", { name: /auth\.example\.com/ }).count()).toBe(0);
      const consent = page.getByTestId(`accept-${id}`);
      expect(await consent.textContent()).toBe("Consent");
      await consent.click();
      await expect.poll(() => text(page, `verdict-${id}`), poll).toMatch(/Accepted.*answered by.*human-1/);
      const verdict = await status(id);
      expect(verdict.verdict).toMatchObject({ action: "accept", reason: "answered" });
      expect(verdict.verdict.content).toBeUndefined();
      // Once consented, a link the human may follow, in a new tab that cannot reach back.
      const link = card.getByRole("link", { name: "Open auth.example.com ↗" });
      expect([await attr(link, "href"), await attr(link, "target"), await attr(link, "rel")]).toEqual([url, "_blank", "noopener noreferrer"]);
      expect(seen).toEqual([]);
    });

    it("asks for consent on the standalone page too, warns of a plain-http address, and takes a decline", async () => {
      const s = sid("conv_url");
      await inbox().session(s, { title: "Payments" });
      const plain = "http://pay.example.com:8080/invoice/42";
      const id = await inbox().raise(s, { mode: "url", message: "Pay invoice 42", url: plain, elicitationId: "pay-42" });
      const page = await inbox().open(`/approval.html?elicitation=${id}`);
      const seen = watch(page);
      const card = page.getByTestId(`card-${id}`);
      await card.waitFor();
      expect(await card.locator(".host").textContent()).toBe("pay.example.com:8080");
      expect(await card.textContent()).toContain("(not encrypted)");
      expect(await card.locator(".url code").textContent()).toBe(plain);
      await page.getByTestId(`decline-${id}`).click();
      await expect.poll(() => text(page, `verdict-${id}`), poll).toMatch(/Declined/);
      expect(await card.getByRole("link", { name: /Open/ }).count()).toBe(0);
      expect((await status(id)).verdict).toMatchObject({ action: "decline" });
      expect(seen).toEqual([]);
    });
  });
});
