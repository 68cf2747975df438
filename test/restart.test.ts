/** `npm start` keeps its state in TOLLGATE_DATA_DIR: a restart loses no pending elicitation or schedule. */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GetScheduleCommand, SchedulerClient } from "@aws-sdk/client-scheduler";
import { afterAll, expect, it } from "vitest";
import { freePort } from "../local/dynamodb.js";
import { mintToken } from "../local/tokens.js";
import { scheduleName, timerKeys } from "../functions/domain/timers.js";

const dataDir = mkdtempSync(join(tmpdir(), "tollgate-restart-"));
const secret = "restart-secret";
let child: ChildProcess | undefined;

function start(port: number): Promise<ChildProcess> {
  const proc = spawn(process.execPath, ["--import", "tsx", "local/main.ts"], {
    env: { ...process.env, TOLLGATE_PORT: String(port), TOLLGATE_DATA_DIR: dataDir, TOLLGATE_JWT_SECRET: secret },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child = proc;
  return new Promise((resolve, reject) => {
    let output = "";
    proc.stdout!.on("data", (chunk) => {
      output += chunk;
      if (/^ready$/m.test(output)) resolve(proc);
    });
    proc.stderr!.on("data", (chunk) => (output += chunk));
    proc.once("exit", (code) => reject(new Error(`exited ${code}: ${output}`)));
  });
}

const stop = (proc: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    proc.once("exit", (code) => resolve(code));
    proc.kill("SIGTERM");
  });

afterAll(async () => {
  // SIGTERM, not SIGKILL: the runtime stops its DynamoDB Local child on the way out.
  if (child && child.exitCode === null) await stop(child);
  rmSync(dataDir, { recursive: true, force: true });
});

it("keeps a pending elicitation and its deadline schedule across a restart", { timeout: 90_000 }, async () => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const runner = await mintToken(secret, { sub: "r", tenant: "acme", role: "runner" });
  const human = await mintToken(secret, { sub: "h", tenant: "acme", role: "human" });
  const call = (token: string, method: string, path: string, body?: unknown) =>
    fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${token}` }, body: body === undefined ? undefined : JSON.stringify(body) }).then(async (r) => ({
      status: r.status,
      body: await r.json(),
    }));

  const first = await start(port);
  await call(runner, "PUT", "/v1/sessions/conv_r", {});
  const raised = await call(runner, "POST", "/v1/sessions/conv_r/events", { type: "response.elicitation_request", elicitation_id: "elicit_r", params: { message: "Still here after a restart?" } });
  expect(raised.status).toBe(201);
  // Let the stream poller create the deadline schedule and checkpoint before stopping.
  const scheduler = new SchedulerClient({ endpoint: base, region: "us-east-1", credentials: { accessKeyId: "local", secretAccessKey: "local" } });
  const name = scheduleName("deadline", timerKeys.deadline({ tenant: "acme", elicitation_id: "elicit_r" }));
  await expect
    .poll(
      () =>
        scheduler.send(new GetScheduleCommand({ Name: name, GroupName: "tollgate" })).then(
          (s) => s.Name,
          () => undefined,
        ),
      { timeout: 10_000 },
    )
    .toBe(name);
  expect(await stop(first)).toBe(0);
  // DynamoDB Local (a java child holding the data dir) went with it.
  expect(spawnSync("pgrep", ["-f", dataDir]).status).toBe(1);

  await start(port);
  const read = await call(human, "GET", "/v1/elicitations/elicit_r");
  expect(read.body).toMatchObject({ status: "pending", session_id: "conv_r" });
  expect((await call(human, "GET", "/v1/sessions/conv_r")).body.pending_elicitations_count).toBe(1);
  const schedule = await scheduler.send(new GetScheduleCommand({ Name: name, GroupName: "tollgate" }));
  expect(JSON.parse(schedule.Target!.Input!)).toEqual({ tenant: "acme", elicitation_id: "elicit_r" });
  scheduler.destroy();
});
