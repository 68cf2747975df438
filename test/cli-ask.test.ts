/**
 * `tollgate ask` parks like a runner and exits by the verdict (accept 0, decline 3, timeout 4,
 * cancel 5), and `tollgate demo` narrates a parent and its sub-agent through an approval, in order (and
 * withdraws its prompt when it stops early).
 * Subprocesses against a local runtime with a short escalation grace.
 */
import { createConnection, createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { EXIT } from "../cli/exit.js";
import { cli, cliRuntime, type CliRun } from "./support/cli.js";

const local = cliRuntime({ as: "runner", escalationGraceSeconds: 1 });

/** Start `tollgate ask` and wait until it has parked: its elicitation id, from its progress line. */
async function asking(session: string, ...flags: string[]): Promise<{ run: CliRun; id: string }> {
  const run = local.start(["ask", `Deploy ${session}?`, "--session", session, ...flags]);
  const line = await run.line(/waiting for a verdict on/);
  const id = /(elicit_\S+)/.exec(line)![1];
  // The line comes once the wait is parked: the elicitation is stored, with the deadline the line names.
  const read = await local.t.http(local.human, "GET", `/v1/elicitations/${id}`);
  expect(read.status).toBe(200);
  expect(read.body).toMatchObject({ session_id: session, event: { params: { message: `Deploy ${session}?` } } });
  expect(line).toContain(`until ${read.body.event.deadline}`);
  return { run, id };
}

const verdict = (session: string, id: string, action: string, content?: object) =>
  local.t.http(local.human, "POST", `/v1/sessions/${session}/events`, { type: "approval", elicitation_id: id, action, ...(content ? { content } : {}) });

it("accept exits 0 and prints the form's answers on stdout", { timeout: 60_000 }, async () => {
  const schema = JSON.stringify({ type: "object", properties: { region: { type: "string" } }, required: ["region"] });
  const { run, id } = await asking("ask_accept", "--schema", schema);
  expect((await verdict("ask_accept", id, "accept", { region: "eu-west-1" })).status).toBe(200);
  expect(await run.exited).toBe(EXIT.ok);
  expect(JSON.parse(run.stdout)).toEqual({ region: "eu-west-1" });
  expect(run.stderr).toMatch(/accepted \(answered\)/);
});

it("decline exits 3; --json prints the verdict", { timeout: 60_000 }, async () => {
  const { run, id } = await asking("ask_decline", "--json");
  await verdict("ask_decline", id, "decline");
  expect(await run.exited).toBe(EXIT.declined);
  expect(JSON.parse(run.stdout)).toMatchObject({ type: "elicitation.verdict", elicitation_id: id, action: "decline", reason: "answered" });
});

it("silence until --timeout 1 exits 4, not as a decline", { timeout: 60_000 }, async () => {
  const { run } = await asking("ask_timeout", "--timeout", "1");
  expect(await run.exited).toBe(EXIT.timedOut);
  expect(run.stderr).toMatch(/timed out \(timeout\)/);
});

it("a cancelled run exits 5", { timeout: 60_000 }, async () => {
  const { run } = await asking("ask_cancel");
  expect((await local.t.http(local.env.TOLLGATE_TOKEN, "POST", "/v1/sessions/ask_cancel/cancel", {})).body).toEqual({ cancelled: 1 });
  expect(await run.exited).toBe(EXIT.cancelled);
});

it("Ctrl-C cancels the elicitation (the human's card closes) and exits 5", { timeout: 60_000 }, async () => {
  const { run, id } = await asking("ask_interrupt");
  run.child.kill("SIGINT");
  expect(await run.exited).toBe(EXIT.cancelled);
  const read = await local.t.http(local.human, "GET", `/v1/elicitations/${id}`);
  expect(read.body).toMatchObject({ status: "resolved", verdict: { action: "cancel", reason: "cancelled" } });
});

/** A TCP relay to the runtime that can be taken away (nothing listens, every connection cut) and brought back on its port. */
async function outageRelay(target: URL) {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  const listen = (port: number) =>
    new Promise<number>((done) => {
      server = createServer((client) => {
        const upstream = createConnection({ host: target.hostname, port: Number(target.port) });
        for (const [a, b] of [
          [client, upstream],
          [upstream, client],
        ]) {
          sockets.add(a);
          a.pipe(b);
          a.on("error", () => b.destroy());
          a.on("close", () => (sockets.delete(a), b.destroy()));
        }
      });
      server.listen(port, "127.0.0.1", () => done((server!.address() as AddressInfo).port));
    });
  const port = await listen(0);
  const down = () => {
    server?.close();
    for (const s of sockets) s.destroy();
  };
  return { url: `ws://127.0.0.1:${port}${target.pathname}`, down, up: () => listen(port) };
}

it("Tollgate out of reach for a while: the wait goes on, and the verdict given meanwhile ends it", { timeout: 60_000 }, async () => {
  const relay = await outageRelay(new URL(local.t.runtime.wsUrl));
  try {
    const run = local.start(["ask", "Deploy ask_outage?", "--session", "ask_outage", "--ws-url", relay.url]);
    const id = /(elicit_\S+)/.exec(await run.line(/waiting for a verdict on/))![1];
    relay.down();
    // Several reconnects refused (the client's pauses start at 100 ms): the process must not end meanwhile.
    await new Promise((r) => setTimeout(r, 1_500));
    expect(run.child.exitCode).toBeNull();
    expect((await verdict("ask_outage", id, "accept")).status).toBe(200);
    await relay.up();
    expect(await run.exited).toBe(EXIT.ok);
    expect(run.stderr).toMatch(/accepted \(answered\)/);
  } finally {
    relay.down();
  }
});

it("a refused ask (a human's token may not raise) is one line and exit 1", { timeout: 60_000 }, async () => {
  const out = await cli(["ask", "Deploy?", "--session", "ask_refused"], { ...local.env, TOLLGATE_TOKEN: local.human });
  expect(out.code).toBe(EXIT.refused);
  expect(out.stderr.trim().split("\n")).toHaveLength(1);
  expect(out.stderr).toMatch(/forbidden/);
  // A raise the server refuses (an empty question) is its refusal alone: it never says it is waiting.
  const empty = await cli(["ask", "", "--session", "ask_refused"], local.env);
  expect(empty.code).toBe(EXIT.refused);
  expect(empty.stderr.trim().split("\n")).toEqual([expect.stringMatching(/bad_request: params\.message/)]);
});

it("demo narrates the child blocking, the parent woken after the grace, the answer, the child unblocked, the parent told", { timeout: 60_000 }, async () => {
  const out = await cli(["demo", "--json", "--wait", "20"], { ...local.env, TOLLGATE_TOKEN: await local.t.token("service", "demo") });
  expect(out.code, out.stderr).toBe(EXIT.ok);
  const steps = out.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  expect(steps.map((s) => s.event)).toEqual([
    "parent_connected",
    "child_connected",
    "child_blocked",
    "waiting_for_grace",
    "parent_woken",
    "human_answered",
    "child_unblocked",
    "parent_told_resolved",
    "done",
  ]);
  expect(steps.map((s) => s.step)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  expect(steps[4].text_received).toMatch(/^\[System: sub-agent demo\/deployer .*blocked awaiting human approval/);
  expect(steps[4].text_received).toContain("Approve running 'git push origin main'?");
  expect(steps[6]).toMatchObject({ action: "accept", reason: "answered" });
  expect(steps[7].text_received).toMatch(/pending approval was resolved/);
  const text = await cli(["demo", "--wait", "20"], { ...local.env, TOLLGATE_TOKEN: await local.t.token("service", "demo") });
  expect(text.stdout).toMatch(/^1\. The parent agent connects/);
  expect(text.stdout).toMatch(/\n9\. Done\.\n$/);
});

describe("a demo that stops early", () => {
  // The runtime's default escalation grace (120 s): the parent hears nothing within the demo's --wait.
  const patient = cliRuntime({ as: "runner" });

  it("exits 1 and cancels its sub-agent's prompt, so none is left pending for a human", { timeout: 60_000 }, async () => {
    const out = await cli(["demo", "--json", "--wait", "1"], { ...patient.env, TOLLGATE_TOKEN: await patient.t.token("service", "demo") });
    expect(out.code).toBe(EXIT.refused);
    expect(out.stderr).toMatch(/the parent heard no block notice within 1 s/);
    const blocked = out.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
      .find((s) => s.event === "child_blocked");
    const read = await patient.t.http(patient.human, "GET", `/v1/elicitations/${blocked.elicitation_id}`);
    expect(read.body).toMatchObject({ status: "resolved", verdict: { action: "cancel", reason: "cancelled" } });
  });
});
