/** Drives the approval inbox in headless Chromium against a real local runtime (Debian's chromium). */
import { existsSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import type { RuntimeOptions } from "../../local/runtime.js";
import { startTollgate, type Harness } from "./tollgate.js";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"];

/** Browser tests run where Chromium is installed, and always in CI. */
export const noBrowser = !existsSync(CHROMIUM) && !process.env.CI;
export const poll = { timeout: 10_000, interval: 50 };

export interface Inbox {
  t: Harness;
  browser: Browser;
  human: string;
  runner: string;
  /** Messages of uncaught errors in any page opened. */
  pageErrors: string[];
  /** A fresh browser (empty localStorage) on a page of the inbox, signed in through ?token=. */
  open(path: string, options?: { noSocket?: boolean; width?: number; height?: number }): Promise<Page>;
  /** A fresh browser with nothing in it. */
  context(): Promise<BrowserContext>;
  /** Registers a session (as the runner). */
  session(id: string, body?: Record<string, unknown>): Promise<void>;
  /** Raises an elicitation in a session (as the runner); its id. */
  raise(sessionId: string, params: Record<string, unknown>): Promise<string>;
  stop(): Promise<void>;
}

export const sid = (name: string) => `${name}_${randomUUID().slice(0, 8)}`;

export async function startInbox(options: Partial<RuntimeOptions> = {}): Promise<Inbox> {
  const t = await startTollgate(options);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  const human = await t.token("human", "human-1");
  const runner = await t.token("runner", "runner-1");
  const pageErrors: string[] = [];
  const context = () => browser.newContext();
  return {
    t,
    browser,
    human,
    runner,
    pageErrors,
    context,
    async open(path, { noSocket = false, width = 1280, height = 800 } = {}) {
      const ctx = await browser.newContext({ viewport: { width, height } });
      if (noSocket) {
        // A tab whose live updates never arrive: it only knows what it fetched.
        await ctx.addInitScript(() => {
          (window as any).WebSocket = class {
            static CONNECTING = 0;
            static OPEN = 1;
            static CLOSING = 2;
            static CLOSED = 3;
            readyState = 0;
            send() {}
            close() {}
          };
        });
      }
      const page = await ctx.newPage();
      page.setDefaultTimeout(10_000);
      page.on("pageerror", (e) => pageErrors.push(e.message));
      const sep = path.includes("?") ? "&" : "?";
      const [base, hash = ""] = path.split("#");
      await page.goto(`${t.runtime.httpUrl}${base}${sep}token=${human}${hash ? `#${hash}` : ""}`);
      return page;
    },
    async session(id, body = {}) {
      const r = await t.http(runner, "PUT", `/v1/sessions/${id}`, body);
      expect(r.status).toBeLessThan(300);
    },
    async raise(sessionId, params) {
      const r = await t.http(runner, "POST", `/v1/sessions/${sessionId}/events`, { type: "response.elicitation_request", params });
      expect(r.status).toBe(201);
      return r.body.elicitation_id;
    },
    async stop() {
      await browser.close();
      await t.stop();
    },
  };
}

/**
 * One inbox for the tests of a `describe`: started before them, stopped after them, and no uncaught
 * page error after any of them. Call inside the `describe`; the getter answers once it started.
 */
export function useInbox(options: Partial<RuntimeOptions> = {}): () => Inbox {
  let inbox: Inbox | undefined;
  beforeAll(async () => {
    inbox = await startInbox(options);
  });
  afterAll(() => inbox?.stop());
  afterEach(() => {
    expect(inbox?.pageErrors).toEqual([]);
  });
  return () => inbox!;
}

/** The page is subscribed: what happens from now on reaches it by push. */
export const live = (page: Page) => page.locator("#conn", { hasText: "Live" }).waitFor();
export const text = (page: Page, testId: string) => page.getByTestId(testId).textContent();
export const visible = (page: Page, testId: string) => page.getByTestId(testId).isVisible();
