/** The `tollgate` CLI as a subprocess, exactly as a shell runs it (`bin/tollgate.js` with plain node). */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll } from "vitest";
import type { RuntimeOptions } from "../../local/runtime.js";
import type { Role } from "../../functions/shared/schemas.js";
import { SECRET, startTollgate, type Harness } from "./tollgate.js";

const bin = fileURLToPath(new URL("../../bin/tollgate.js", import.meta.url));

export interface CliRun {
  child: ChildProcess;
  stdout: string;
  stderr: string;
  /** Resolves with the exit code once the process ends. */
  exited: Promise<number>;
  /** Resolves with the first stdout or stderr line that matches. */
  line(match: RegExp, timeoutMs?: number): Promise<string>;
}

/** `input`, when given, is written to its stdin (then closed). */
export function startCli(args: string[], env: Record<string, string | undefined> = {}, input?: string): CliRun {
  const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, NO_COLOR: "1", ...env }, stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"] });
  if (input !== undefined) child.stdin!.end(input);
  const run = { child, stdout: "", stderr: "" } as CliRun;
  const waiters: { match: RegExp; resolve: (line: string) => void }[] = [];
  const check = () => {
    for (const w of [...waiters]) {
      const line = `${run.stdout}${run.stderr}`.split("\n").find((l) => w.match.test(l));
      if (line !== undefined) waiters.splice(waiters.indexOf(w), 1), w.resolve(line);
    }
  };
  child.stdout!.on("data", (d: Buffer) => ((run.stdout += d.toString()), check()));
  child.stderr!.on("data", (d: Buffer) => ((run.stderr += d.toString()), check()));
  run.exited = new Promise((resolve) => child.once("close", (code, signal) => resolve(code ?? (signal ? 128 : -1))));
  run.line = (match, timeoutMs = 20_000) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no line matching ${match} within ${timeoutMs} ms; stdout: ${run.stdout} stderr: ${run.stderr}`)), timeoutMs);
      waiters.push({ match, resolve: (l) => (clearTimeout(timer), resolve(l)) });
      check();
    });
  return run;
}

/** Run to the end: exit code and output. */
export async function cli(args: string[], env: Record<string, string | undefined> = {}, input?: string) {
  const run = startCli(args, env, input);
  const code = await run.exited;
  return { code, stdout: run.stdout, stderr: run.stderr };
}

/** The environment a shell would give the CLI to reach this runtime as `role` (a human), minting with its secret. */
export const cliEnv = async (t: Harness, role: Role = "human"): Promise<Record<string, string>> => ({
  TOLLGATE_URL: t.runtime.httpUrl,
  TOLLGATE_TOKEN: await t.token(role),
  TOLLGATE_JWT_SECRET: SECRET,
});

export interface CliRuntime {
  t: Harness;
  /** Reaches the runtime as the role asked for. */
  env: Record<string, string>;
  /** A human's token, to answer what the CLI raised. */
  human: string;
  /** `startCli`, with `env` unless told otherwise; a process still running after the file's tests is killed. */
  start(args: string[], env?: Record<string, string | undefined>, input?: string): CliRun;
}

/**
 * A local runtime for a file's CLI tests (started with `options`), the environment that reaches it
 * as `as` (default: a human) and a human's token, all ready before the tests run.
 */
export function cliRuntime({ as = "human", ...options }: Partial<RuntimeOptions> & { as?: Role } = {}): CliRuntime {
  const runs: CliRun[] = [];
  const run = {} as CliRuntime;
  run.start = (args, env = run.env, input) => {
    const started = startCli(args, env, input);
    runs.push(started);
    return started;
  };
  beforeAll(async () => {
    run.t = await startTollgate(options);
    run.env = await cliEnv(run.t, as);
    run.human = await run.t.token("human");
  });
  afterAll(async () => {
    for (const started of runs) started.child.kill("SIGKILL"); // one a failed test left waiting
    await run.t?.stop();
  });
  return run;
}
