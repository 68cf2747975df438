/**
 * `npm run smoke`, the check a user runs after `cdk deploy`, run as a user runs it (a separate
 * process) against the local runtime, with a short deadline and grace instead of the cloud's.
 */
import { execFile } from "node:child_process";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mintToken } from "../local/tokens.js";
import { repoRoot } from "../infra/stack.js";
import { type Harness, SECRET, startTollgate } from "./support/tollgate.js";

let h: Harness;
beforeAll(async () => {
  h = await startTollgate({ escalationGraceSeconds: 1 });
});
afterAll(() => h?.stop());

function smoke(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ["--import", "tsx", path.join(repoRoot, "scripts/smoke.ts"), ...args], { cwd: repoRoot, timeout: 120_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const local = () => ["--http", h.runtime.httpUrl, "--ws", h.runtime.wsUrl];
const short = ["--deadline-seconds", "1", "--deadline-wait-seconds", "20", "--grace-seconds", "1", "--notice-slack-seconds", "20"];

describe("npm run smoke", () => {
  it("passes every step against a working Tollgate and leaves nothing pending", async () => {
    const run = await smoke(...local(), "--secret", SECRET, "--tenant", "smoke-ok", ...short);
    expect(run.stderr).not.toContain("FAIL");
    expect(run.code).toBe(0);
    for (const step of [
      "health",
      "connect",
      "park",
      "answer over HTTP",
      "verdict reaches the runner",
      "badge back to 0",
      "cancel",
      "deadline of 1 s",
      "sub-agent notice",
      "cleanup: 1 pending cancelled",
    ]) {
      expect(run.stdout, step).toContain(`ok  ${step}`);
    }
    expect(run.stdout).toContain("smoke test passed");
    const human = await mintToken(SECRET, { sub: "auditor", tenant: "smoke-ok", role: "human" });
    const pending = await h.http(human, "GET", "/v1/sessions?pending=true");
    expect(pending.status).toBe(200);
    expect(pending.body.sessions).toEqual([]);
    const all = await h.http(human, "GET", "/v1/sessions");
    expect(all.body.sessions.map((x: { session_id: string }) => x.session_id).length).toBe(2);
  }, 150_000);

  it("takes ready-made tokens instead of the secret (one service token acts as runner and human)", async () => {
    const service = await mintToken(SECRET, { sub: "ci", tenant: "smoke-tokens", role: "service" });
    const run = await smoke(...local(), "--service-token", service, ...short);
    expect(run.code, run.stderr).toBe(0);
  }, 150_000);

  it("fails, with the reason, when the deployment refuses its tokens", async () => {
    const run = await smoke(...local(), "--secret", "not-the-secret", ...short);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("ok  health");
    expect(run.stderr).toMatch(/FAIL .*unauthorized|connection refused/);
  }, 150_000);

  it("refuses bad flags before it calls anything", async () => {
    const noUrl = await smoke("--http", "not-a-url", "--ws", h.runtime.wsUrl, "--secret", SECRET);
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toContain("http");
    const noCredentials = await smoke(...local());
    expect(noCredentials.code).toBe(2);
    expect(noCredentials.stderr).toContain("--secret");
    const unknown = await smoke(...local(), "--secret", SECRET, "--bogus", "1");
    expect(unknown.code).toBe(2);
  }, 150_000);
});
