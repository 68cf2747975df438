/**
 * `tollgate start` is the local runtime as `npm start` runs it (its own DynamoDB Local): it serves
 * `GET /openapi.json`, the development tokens of `tollgate token` work against it, and it stops on SIGTERM.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { EXIT } from "../cli/exit.js";
import { TollgateRunner } from "../sdk/runner.js";
import { cli, startCli, type CliRun } from "./support/cli.js";

let run: CliRun | undefined;
afterAll(async () => {
  if (run && run.child.exitCode === null) run.child.kill("SIGKILL");
});

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

it("starts the runtime, serves the OpenAPI document, accepts development tokens, stops on SIGTERM with a runner connected", { timeout: 120_000 }, async () => {
  const port = await freePort();
  const noSecret = { TOLLGATE_JWT_SECRET: "", TOLLGATE_DYNAMODB_ENDPOINT: "" };
  run = startCli(["start", "--port", String(port), "--data-dir", mkdtempSync(join(tmpdir(), "tollgate-cli-start-"))], noSecret);
  await run.line(/^ready$/, 90_000);
  const url = `http://127.0.0.1:${port}`;

  const served = await fetch(`${url}/openapi.json`);
  expect(served.status).toBe(200);
  expect(await served.text()).toBe(readFileSync(new URL("../docs/openapi.json", import.meta.url), "utf8"));

  const token = (await cli(["token", "--role", "human"], noSecret)).stdout.trim();
  const pending = await cli(["pending", "--json", "--url", url, "--token", token]);
  expect(pending.code, pending.stderr).toBe(EXIT.ok);
  expect(JSON.parse(pending.stdout)).toEqual({ sessions: [] });

  // A runner stays connected, and reconnects at once when its socket closes: the runtime stops all the same.
  const runnerToken = (await cli(["token", "--role", "runner"], noSecret)).stdout.trim();
  const runner = new TollgateRunner({ url: `ws://127.0.0.1:${port}/ws`, token: runnerToken, sessions: [{ session_id: "cli_start_runner" }] });
  await runner.connect();
  run.child.kill("SIGTERM");
  expect(await run.exited).toBe(0);
  runner.close();
});
