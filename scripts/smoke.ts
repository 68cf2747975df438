/**
 * A short end-to-end run against a deployed Tollgate (or the local runtime): park, answer over
 * HTTP, verdict, badge, cancel, a deadline, a sub-agent notice; then it cancels whatever it left
 * pending. Exit code 0 when every step passed, 1 when one failed, 2 on bad flags.
 *
 *   npm run smoke -- --http <HttpUrl> --ws <WebSocketUrl> --secret <jwt secret>
 *   npm run smoke -- --http ... --ws ... --runner-token <jwt> --human-token <jwt>   (or --service-token)
 */
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import * as z from "zod";
import { mintToken } from "../local/tokens.js";
import { type SessionMessage, TollgateRunner, type Verdict } from "../sdk/runner.js";

const seconds = (fallback: number) => z.coerce.number().int().positive().default(fallback);

const FlagShape = z.object({
  http: z.url({ protocol: /^https?$/ }).transform((u) => u.replace(/\/+$/, "")),
  ws: z.url({ protocol: /^wss?$/ }),
  secret: z.string().min(1).optional(),
  "runner-token": z.string().min(1).optional(),
  "human-token": z.string().min(1).optional(),
  "service-token": z.string().min(1).optional(),
  /** The tenant of the tokens minted from --secret. */
  tenant: z.string().min(1).default("smoke"),
  /** `timeout_seconds` of the deadline step, and how long to wait for its timeout (Scheduler fires up to a minute late). */
  "deadline-seconds": seconds(60),
  "deadline-wait-seconds": seconds(150),
  /** The escalation grace the stack was deployed with, and how long past it to wait for the notice. */
  "grace-seconds": seconds(120),
  "notice-slack-seconds": seconds(90),
});
const Flags = FlagShape.refine((f) => f.secret || f["service-token"] || (f["runner-token"] && f["human-token"]), {
  message: "give --secret, or --runner-token with --human-token, or --service-token",
});
type Flags = z.infer<typeof Flags>;

class SmokeFailure extends Error {}

function check(ok: boolean, what: string): asserts ok {
  if (!ok) throw new SmokeFailure(what);
}

const nothingWithin = (what: string, ms: number) => new SmokeFailure(`${what}: nothing within ${Math.round(ms / 1000)} s`);

/** Poll until `probe` holds, at most `ms`. */
async function until(ms: number, what: string, probe: () => Promise<boolean> | boolean): Promise<void> {
  const end = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > end) throw nothingWithin(what, ms);
    await new Promise((r) => setTimeout(r, 500));
  }
}

function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(nothingWithin(what, ms)), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

async function tokensOf(f: Flags): Promise<{ runner: string; human: string }> {
  if (f.secret) {
    const sub = `smoke-${randomUUID().slice(0, 8)}`;
    const mint = (role: "runner" | "human") => mintToken(f.secret!, { sub: `${sub}-${role}`, tenant: f.tenant, role }, 3600);
    return { runner: await mint("runner"), human: await mint("human") };
  }
  return { runner: f["runner-token"] ?? f["service-token"]!, human: f["human-token"] ?? f["service-token"]! };
}

/** The HTTP API as the smoke test calls it: status and parsed body, never a throw for a status. */
function httpApi(base: string) {
  return async (token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
}

const expectVerdict = (v: Verdict, action: Verdict["action"], reason: Verdict["reason"]) =>
  check(v.action === action && v.reason === reason, `verdict ${v.action}/${v.reason}, expected ${action}/${reason}`);

async function smoke(f: Flags, print: (line: string) => void): Promise<void> {
  const tokens = await tokensOf(f);
  const http = httpApi(f.http);
  const run = randomUUID().slice(0, 8);
  const parent = `smoke_${run}`;
  const child = `smoke_${run}_child`;
  const messages: SessionMessage[] = [];
  const runner = new TollgateRunner({
    url: f.ws,
    token: tokens.runner,
    sessions: [
      { session_id: parent, title: "smoke:parent" },
      { session_id: child, parent_session_id: parent, title: "smoke:child" },
    ],
    onMessage: (m) => messages.push(m),
  });
  const step = async (name: string, body: () => Promise<unknown>) => {
    const started = Date.now();
    await body();
    print(`ok  ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  };
  const park = (session: string, timeoutSeconds?: number) => {
    const id = `elicit_smoke_${randomUUID()}`;
    const verdict = runner.elicit({ sessionId: session, elicitationId: id, params: { message: `Smoke test ${run}: approve?` }, timeoutSeconds });
    verdict.catch(() => undefined); // awaited by its step, which reports a refusal
    return { id, verdict };
  };
  const badgeIs = (n: number) =>
    until(10_000, `badge ${n}`, async () => {
      const res = await http(tokens.human, "GET", `/v1/sessions/${parent}`);
      check(res.status === 200, `GET /v1/sessions/${parent}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.pending_elicitations_count === n;
    });

  try {
    await step("health", async () => check((await fetch(`${f.http}/healthz`)).status === 200, "GET /healthz is not 200"));
    await step("connect", () => runner.connect());
    const answered = park(parent);
    await step("park: the human sees it, badge 1", () => badgeIs(1));
    await step("answer over HTTP", async () => {
      const res = await http(tokens.human, "POST", `/v1/sessions/${parent}/events`, { type: "approval", elicitation_id: answered.id, action: "accept" });
      check(res.status === 200, `approval: ${res.status} ${JSON.stringify(res.body)}`);
    });
    await step("verdict reaches the runner", async () => expectVerdict(await within(10_000, "verdict", answered.verdict), "accept", "answered"));
    await step("badge back to 0", () => badgeIs(0));

    const cancelled = park(parent);
    await step("cancel the session's pending elicitations", async () => {
      await badgeIs(1);
      const res = await http(tokens.runner, "POST", `/v1/sessions/${parent}/cancel`, {});
      check(res.status === 200 && res.body.cancelled === 1, `cancel: ${res.status} ${JSON.stringify(res.body)}`);
      expectVerdict(await within(10_000, "cancel verdict", cancelled.verdict), "cancel", "cancelled");
    });

    // The deadline and the sub-agent notice both wait on Scheduler: side by side.
    const timedOut = park(parent, f["deadline-seconds"]);
    park(child); // blocks the sub-agent; the cleanup cancels it
    await Promise.all([
      step(`deadline of ${f["deadline-seconds"]} s resolves decline/timeout`, async () =>
        expectVerdict(await within(f["deadline-wait-seconds"] * 1000, "timeout verdict", timedOut.verdict), "decline", "timeout"),
      ),
      step(`sub-agent notice to the parent after the ${f["grace-seconds"]} s grace`, () =>
        until((f["grace-seconds"] + f["notice-slack-seconds"]) * 1000, "notice", () => messages.some((m) => m.kind === "notice" && m.session_id === parent)),
      ),
    ]);
  } finally {
    // Whatever is still pending (the child's block, anything a failed step left) resolves cancelled.
    const res = await http(tokens.runner, "POST", `/v1/sessions/${parent}/cancel`, { descendants: true }).catch((e: Error) => ({ status: 0, body: e.message }));
    runner.close();
    if (res.status === 200) print(`ok  cleanup: ${res.body.cancelled} pending cancelled in ${parent} and ${child}`);
    else if (res.status !== 404) print(`cleanup failed: ${res.status} ${JSON.stringify(res.body)}`);
  }
}

function flagsOf(argv: string[]): Flags | string {
  try {
    const options = Object.fromEntries(Object.keys(FlagShape.shape).map((k) => [k, { type: "string" as const }]));
    const flags = Flags.safeParse(parseArgs({ args: argv, options, strict: true }).values);
    return flags.success ? flags.data : z.prettifyError(flags.error);
  } catch (error) {
    return (error as Error).message; // an unknown flag or a flag without its value
  }
}

async function main(): Promise<number> {
  const flags = flagsOf(process.argv.slice(2));
  if (typeof flags === "string") {
    console.error(`smoke: ${flags}`);
    return 2;
  }
  try {
    await smoke(flags, (line) => console.log(line));
    console.log("smoke test passed");
    return 0;
  } catch (error) {
    console.error(`FAIL ${error instanceof SmokeFailure ? error.message : String(error)}`);
    return 1;
  }
}

process.exitCode = await main();
