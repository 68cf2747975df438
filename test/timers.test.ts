/**
 * No Tollgate code asks Scheduler for a time that has passed: every timer (deadline, escalation
 * grace, reconnect grace) that is already due when its stream record is handled does its job at
 * once. The stream records are handled late here by the domain on a clock moved past the timer,
 * with a Scheduler seam that refuses a past `at()` as AWS does (ValidationException).
 */
import { SchedulerClient } from "@aws-sdk/client-scheduler";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { ConnectionItem } from "../functions/domain/items.js";
import { scheduleName, schedulerTimers, timerKeys, type Timers } from "../functions/domain/timers.js";
import { readConfig } from "../functions/shared/config.js";
import { env } from "../functions/shared/env.js";
import { domainOver } from "./support/domain.js";
import { eventually, startTollgate, type Harness } from "./support/tollgate.js";

let t: Harness;
// The runtime's own timers stay far off, so only the late handling below can end anything.
beforeAll(async () => (t = await startTollgate({ reconnectGraceSeconds: 300, escalationGraceSeconds: 300 })));
afterAll(() => t?.stop());

/** Scheduler as AWS answers it: a one-time schedule in the past is refused; the rest is recorded. */
function strictTimers(now: () => number) {
  const scheduled: { timer: string; at: Date }[] = [];
  const timers: Timers = {
    async schedule(timer, _key, at) {
      if (at.getTime() <= now()) throw Object.assign(new Error("The schedule expression is in the past."), { name: "ValidationException" });
      scheduled.push({ timer, at });
    },
    cancel: async () => undefined,
  };
  return { timers, scheduled };
}

/** The domain on a clock `aheadMs` in the future, with the strict Scheduler and a batch's audience. */
function late(aheadMs: number) {
  const now = () => Date.now() + aheadMs;
  const strict = strictTimers(now);
  const tollgate = domainOver(t, { now, timers: () => strict.timers });
  return { tollgate, scheduled: strict.scheduled, audience: tollgate.subscriptions.audience() };
}

async function parked(session: string, id: string, parent?: string, timeout_seconds?: number) {
  const socket = await t.socket(await t.token("runner"));
  await socket.request({ action: "hello", sessions: [{ session_id: session, ...(parent ? { parent_session_id: parent } : {}) }] });
  expect((await socket.request({ action: "elicit", session_id: session, elicitation_id: id, params: { message: `${id}?` }, timeout_seconds })).type).toBe("elicitation.parked");
  return socket;
}

/** The stream change that marked gone the connection an elicitation is bound to, once `$disconnect` wrote it. */
async function disconnectRecord(tollgate: ReturnType<typeof late>["tollgate"], elicitationId: string) {
  const gone = await eventually(async () => {
    const item = await tollgate.elicitations.find("acme", elicitationId);
    const connection = await tollgate.connections.find("acme", item!.connection_id!);
    expect(connection?.gone_at).toBeDefined();
    return connection as ConnectionItem;
  });
  return { old: { ...gone, gone_at: undefined }, new: gone as unknown as Record<string, unknown> };
}

it("a disconnect handled after its reconnect grace resolves what it left pending runner_gone at once", async () => {
  const socket = await parked("late_gone", "late_gone_el");
  socket.close();
  const { tollgate, scheduled, audience } = late(301_000);
  // The stream record of the disconnect, retried once the grace has passed.
  await tollgate.react(await disconnectRecord(tollgate, "late_gone_el"), audience);
  const item = await tollgate.elicitations.find("acme", "late_gone_el");
  expect(item?.verdict).toMatchObject({ action: "cancel", reason: "runner_gone", resolved_by: "tollgate" });
  expect(scheduled).toEqual([]);
});

it("a raise handled after its deadline times out at once", async () => {
  await parked("late_deadline", "late_deadline_el", undefined, 60);
  const { tollgate, scheduled, audience } = late(61_000);
  const raised = await tollgate.elicitations.find("acme", "late_deadline_el");
  await tollgate.react({ new: raised as unknown as Record<string, unknown> }, audience);
  expect((await tollgate.elicitations.find("acme", "late_deadline_el"))?.verdict).toMatchObject({ action: "decline", reason: "timeout", resolved_by: "tollgate" });
  expect(scheduled).toEqual([]);
});

it("a sub-agent's raise handled after its escalation grace tells the parent at once", async () => {
  const parent = await t.socket(await t.token("runner"));
  await parent.request({ action: "hello", sessions: [{ session_id: "late_parent" }] });
  await parked("late_child", "late_block_el", "late_parent");
  const { tollgate, scheduled, audience } = late(301_000);
  const raised = await tollgate.elicitations.find("acme", "late_block_el");
  await tollgate.react({ new: raised as unknown as Record<string, unknown> }, audience);
  await parent.next((f) => f.type === "session.message" && f.kind === "notice");
  expect((await tollgate.elicitations.find("acme", "late_block_el"))?.block_state).toBe("delivered");
  expect(scheduled.map((s) => s.timer)).toEqual(["deadline"]); // its deadline is still ahead
});

it("a timer not yet due is scheduled, not run", async () => {
  await parked("early_gone", "early_el").then((s) => s.close());
  const { tollgate, scheduled, audience } = late(0);
  await tollgate.react(await disconnectRecord(tollgate, "early_el"), audience);
  expect(scheduled.map((s) => s.timer)).toEqual(["runnerGone"]);
  expect((await tollgate.elicitations.find("acme", "early_el"))?.status).toBe("pending");
});

it("gives every one-time schedule a retry policy, and the dead-letter queue when one is configured", async () => {
  const sent: any[] = [];
  const client = new SchedulerClient({ endpoint: t.runtime.httpUrl, region: "us-east-1", credentials: { accessKeyId: "local", secretAccessKey: "local" } });
  client.middlewareStack.add((next) => async (args) => (sent.push(args.input), next(args)), { step: "initialize", name: "recordInput" });
  const dlq = "arn:aws:sqs:us-east-1:000000000000:tollgate-schedules-dlq";
  // The runtime's targets and role (Scheduler refuses empty ones), with and without the queue.
  const withQueue = { ...t.runtime.config.scheduler, deadLetterArn: readConfig({ [env.schedulerDeadLetterArn]: dlq }).scheduler.deadLetterArn };
  const without = { ...t.runtime.config.scheduler, deadLetterArn: readConfig({ [env.schedulerDeadLetterArn]: "" }).scheduler.deadLetterArn };
  const at = new Date(Date.now() + 3_600_000);
  for (const [key, config] of [
    ["dlq-on", withQueue],
    ["dlq-off", without],
  ] as const) {
    const timers = schedulerTimers(client, config);
    await timers.schedule("deadline", key, at, { tenant: "acme", elicitation_id: key });
    await timers.cancel("deadline", key);
  }
  const created = sent.filter((input) => input.ScheduleExpression);
  expect(created.map((input) => input.Target.RetryPolicy)).toEqual([
    { MaximumEventAgeInSeconds: 86_400, MaximumRetryAttempts: 10 },
    { MaximumEventAgeInSeconds: 86_400, MaximumRetryAttempts: 10 },
  ]);
  expect(created.map((input) => input.Target.DeadLetterConfig)).toEqual([{ Arn: dlq }, undefined]);
  client.destroy();
});

it("two tenants' deadlines never share a schedule, whatever hyphens their ids hold (acme/eu-1 and acme-eu/1)", async () => {
  const raise = async (tenant: string, id: string) => {
    const socket = await t.socket(await t.token("runner", `r-${tenant}`, tenant));
    await socket.request({ action: "hello", sessions: [{ session_id: `deadline_${tenant}` }] });
    const parked = await socket.request({ action: "elicit", session_id: `deadline_${tenant}`, elicitation_id: id, params: { message: `${id}?` }, timeout_seconds: 60 });
    expect(parked.type).toBe("elicitation.parked");
  };
  await raise("acme", "eu-1");
  await raise("acme-eu", "1");
  await t.quietScan(); // both raises' stream records are handled: their deadlines are scheduled
  const names = [timerKeys.deadline({ tenant: "acme", elicitation_id: "eu-1" }), timerKeys.deadline({ tenant: "acme-eu", elicitation_id: "1" })].map((key) => scheduleName("deadline", key));
  expect(new Set(names).size).toBe(2);
  for (const name of names) expect(t.runtime.pendingSchedules()).toContain(name);
  await t.elapse(61_000);
  for (const [tenant, id] of [
    ["acme", "eu-1"],
    ["acme-eu", "1"],
  ]) {
    const human = await t.token("human", `h-${tenant}`, tenant);
    await eventually(async () => expect((await t.http(human, "GET", `/v1/elicitations/${id}`)).body.verdict?.reason).toBe("timeout"));
  }
});

it("keys whose ids hold hyphens stay apart: a reminder or delivery attempt of one target never takes another's schedule", () => {
  const names = (keys: string[]) => new Set(keys.map((key) => scheduleName("reminder", key))).size;
  expect(names([timerKeys.reminder("acme", "a-b", "c", 1), timerKeys.reminder("acme", "a", "b-c", 1)])).toBe(2);
  expect(names([timerKeys.notify("acme", "ops", "eu-1.requested", 1), timerKeys.notify("acme", "ops-eu", "1.requested", 1)])).toBe(2);
  expect(names([timerKeys.runnerGone("acme", "eu-c1"), timerKeys.runnerGone("acme-eu", "c1")])).toBe(2);
  // Ids without a hyphen keep the names that read as what they guard.
  expect(scheduleName("deadline", timerKeys.deadline({ tenant: "acme", elicitation_id: "e1" }))).toBe("deadline-acme-e1");
});
