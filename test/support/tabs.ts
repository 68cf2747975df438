/**
 * A Chromium whose tabs behave as a person's do: the tab in front is visible, the others hidden.
 * Playwright's own launch keeps every page "focused" (focus emulation keeps them all visible), so
 * this starts Chromium itself and attaches with `noDefaults`, which leaves the default context as
 * the browser made it.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { ARGS, CHROMIUM } from "./inbox.js";

export interface Tabs {
  browser: Browser;
  /** The browser's default context: its pages are tabs of one window. */
  context: BrowserContext;
  /** A new tab, in front. */
  tab(): Promise<Page>;
  close(): Promise<void>;
}

/** The DevTools address Chromium prints once it listens. */
function devToolsUrl(child: ReturnType<typeof spawn>): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => reject(new Error(`Chromium printed no DevTools address: ${seen}`)), 20_000);
    child.stderr!.on("data", (d: Buffer) => {
      seen += d.toString();
      const m = /DevTools listening on (ws:\/\/\S+)/.exec(seen);
      if (m) clearTimeout(timer), resolve(m[1]);
    });
    child.once("exit", (code) => (clearTimeout(timer), reject(new Error(`Chromium exited (${code}): ${seen}`))));
  });
}

export async function startTabs(): Promise<Tabs> {
  const profile = await mkdtemp(join(tmpdir(), "tollgate-tabs-"));
  const child = spawn(CHROMIUM, [...ARGS, "--headless", "--remote-debugging-port=0", `--user-data-dir=${profile}`, "about:blank"], {
    stdio: ["ignore", "ignore", "pipe"],
    detached: true,
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  // Chromium's helper processes share its process group; killing the group stops them all writing to the profile.
  const kill = () => {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // already gone
    }
  };
  process.once("exit", kill);
  const close = async () => {
    kill();
    process.off("exit", kill);
    await exited;
    // A helper may still be flushing its cache for a moment after the group is killed.
    await rm(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  };
  try {
    const browser = await chromium.connectOverCDP(await devToolsUrl(child), { noDefaults: true, isLocal: true });
    const context = browser.contexts()[0];
    return {
      browser,
      context,
      async tab() {
        const page = await context.newPage();
        page.setDefaultTimeout(10_000);
        await page.bringToFront();
        return page;
      },
      async close() {
        await browser.close().catch(() => undefined);
        await close();
      },
    };
  } catch (error) {
    await close();
    throw error;
  }
}
