/**
 * From what the cost phase counted to dollars per million elicitations on AWS. Every quantity is
 * measured per elicitation; only the prices (as published) and the time a runner waits for its human
 * (a knob) come from outside the run.
 */
import { functions, type FunctionName } from "../../functions/catalog.js";
import { memoryFor } from "../../infra/tollgate-function.js";
import type { CostDeployment, CostMeasurement } from "../phases/cost.js";
import { hundredths } from "../stats.js";
import type { MeteredCall } from "./proxy.js";

/** On-demand, no free tier, US East (N. Virginia), arm64 Lambda; as published on the AWS pricing pages. */
export const prices = {
  checked: "2026-12-01",
  region: "us-east-1",
  lambdaRequests: 0.2, // per million
  lambdaGbSecond: 0.0000133334, // arm64, first tier
  dynamodbWru: 0.625, // per million write request units
  dynamodbRru: 0.125, // per million read request units
  websocketMessages: 1.0, // per million, metered per 32 KB
  websocketConnectionMinutes: 0.25, // per million
  httpRequests: 1.0, // per million (HTTP APIs, first 300 M)
  schedulerInvocations: 1.0, // per million; creating and deleting schedules is not billed
  // A table in provisioned capacity mode (tollgate:capacity=provisioned), standard table class: per unit and hour.
  provisionedWriteUnitHour: 0.00065,
  provisionedReadUnitHour: 0.00013,
};

/**
 * The same counted units on a provisioned table whose auto scaling keeps `utilization` of what it holds
 * in use: a unit held for an hour serves up to 3,600 units (one a second), and that share of them is used.
 * Every other line stays as on-demand prices it. Below `breakEvenUtilization`, on-demand costs less.
 */
function provisioned(perMillion: Record<string, number>, wru: number, rru: number, utilization: number) {
  const perMillionUnits = (unitHour: number) => (unitHour * 1e6) / 3600;
  const writes = (wru * perMillionUnits(prices.provisionedWriteUnitHour)) / utilization;
  const reads = (rru * perMillionUnits(prices.provisionedReadUnitHour)) / utilization;
  const others = Object.entries(perMillion).reduce((a, [k, v]) => (k === "dynamodbWrites" || k === "dynamodbReads" ? a : a + v), 0);
  return {
    utilization,
    perMillionUsd: hundredths(others + writes + reads),
    dynamodbWritesUsd: hundredths(writes),
    dynamodbReadsUsd: hundredths(reads),
    breakEvenUtilization: Number((((writes + reads) * utilization) / (perMillion.dynamodbWrites + perMillion.dynamodbReads)).toPrecision(3)),
  };
}

const total = (u: { table_units: number; index_units: Record<string, number> }) => u.table_units + Object.values(u.index_units).reduce((a, b) => a + b, 0);

/**
 * DynamoDB Local reports reads and single-item writes by AWS's rules (checked against sizes.ts in every
 * run: `ruleCheck`), but a transaction as if its items were one: there the documented rule, applied to
 * the real images before and after, counts. (A Query that finds nothing is given its minimum read by the
 * proxy: `emptyRead`.)
 */
const counted = (c: MeteredCall) => (c.operation === "TransactWriteItems" && c.rule ? c.rule : c);
const units = (c: MeteredCall) => total(counted(c));

/** A refused write is charged at least 1 WRU per item it names (DynamoDB Local reports nothing for it). */
const failedUnits = (c: MeteredCall) => (c.read ? 0.5 : 1) * c.items;

/** Capacity per elicitation by call shape (operation and the item kinds it touches): where the units go. */
function byShape(calls: MeteredCall[], n: number) {
  const shapes = new Map<string, { calls: number; table: number; indexes: Record<string, number>; failed: number }>();
  for (const c of calls) {
    const key = `${c.operation} ${c.kinds.join(" + ")}${c.failed ? ` (${c.failed})` : ""}`;
    const s = shapes.get(key) ?? { calls: 0, table: 0, indexes: {}, failed: 0 };
    s.calls++;
    s.table += counted(c).table_units;
    for (const [i, u] of Object.entries(counted(c).index_units)) s.indexes[i] = (s.indexes[i] ?? 0) + u;
    if (c.failed) s.failed += failedUnits(c);
    shapes.set(key, s);
  }
  return [...shapes]
    .map(([shape, s]) => ({
      shape,
      read: calls.find((c) => `${c.operation} ${c.kinds.join(" + ")}${c.failed ? ` (${c.failed})` : ""}` === shape)!.read,
      callsPerElicitation: hundredths(s.calls / n),
      tableUnits: hundredths(s.table / n),
      indexUnits: Object.fromEntries(Object.entries(s.indexes).map(([i, u]) => [i, hundredths(u / n)])),
      failedUnits: hundredths(s.failed / n),
    }))
    .sort((a, b) => b.tableUnits + Object.values(b.indexUnits).reduce((x, y) => x + y, 0) - (a.tableUnits + Object.values(a.indexUnits).reduce((x, y) => x + y, 0)));
}

/** Invocations and billed GB-seconds per elicitation, per function, at the memory the stack deploys. */
function lambdaOf(m: CostMeasurement) {
  const n = m.elicitations;
  const perFunction = new Map<string, { invocations: number; billedMs: number; ms: number }>();
  for (const v of m.invocations) {
    const f = perFunction.get(v.fn) ?? { invocations: 0, billedMs: 0, ms: 0 };
    f.invocations++;
    f.ms += v.end! - v.start;
    f.billedMs += Math.ceil(v.end! - v.start);
    perFunction.set(v.fn, f);
  }
  const rows = [...perFunction].map(([fn, f]) => {
    const memoryMb = memoryFor(functions[fn as FunctionName]);
    return { fn, memoryMb, invocationsPerElicitation: hundredths(f.invocations / n), meanMs: hundredths(f.ms / f.invocations), gbSecondsPerElicitation: ((f.billedMs / 1000) * (memoryMb / 1024)) / n };
  });
  return {
    invocationsPerElicitation: hundredths(rows.reduce((a, r) => a + r.invocationsPerElicitation, 0)),
    gbSecondsPerElicitation: rows.reduce((a, r) => a + r.gbSecondsPerElicitation, 0),
    functions: rows.map((r) => ({ ...r, gbSecondsPerElicitation: Number(r.gbSecondsPerElicitation.toPrecision(3)) })),
  };
}

export function costModel(m: CostMeasurement, runnerWaitMinutes: number, provisionedUtilization: number) {
  const n = m.elicitations;
  const writes = m.dynamodb.filter((c) => !c.read);
  const reads = m.dynamodb.filter((c) => c.read);
  const sum = (calls: MeteredCall[]) => calls.reduce((a, c) => a + units(c) + (c.failed ? failedUnits(c) : 0), 0);
  const wru = sum(writes) / n;
  const rru = sum(reads) / n;
  const emptyReads = reads.filter((c) => c.emptyRead);
  const lambda = lambdaOf(m);
  const fired = m.invocations.filter((v) => functions[v.fn as FunctionName]?.trigger.kind === "timer").length / n;
  const wsMessages = m.wsMessages / n;
  const perMillion = {
    lambdaRequests: lambda.invocationsPerElicitation * prices.lambdaRequests,
    lambdaDuration: lambda.gbSecondsPerElicitation * 1e6 * prices.lambdaGbSecond,
    dynamodbWrites: wru * prices.dynamodbWru,
    dynamodbReads: rru * prices.dynamodbRru,
    schedulerInvocations: fired * prices.schedulerInvocations,
    websocketMessages: wsMessages * prices.websocketMessages,
    websocketConnectionMinutes: runnerWaitMinutes * prices.websocketConnectionMinutes,
    httpRequests: (m.httpRequests / n) * prices.httpRequests,
  };
  const single = writes.filter((c) => c.operation !== "TransactWriteItems" && c.rule);
  const transactions = writes.filter((c) => c.operation === "TransactWriteItems" && c.rule);
  const ruleCheck = {
    singleWritesReported: hundredths(single.reduce((a, c) => a + total(c), 0) / n),
    singleWritesByRule: hundredths(single.reduce((a, c) => a + total(c.rule!), 0) / n),
    transactionsReported: hundredths(transactions.reduce((a, c) => a + total(c), 0) / n),
    transactionsByRule: hundredths(transactions.reduce((a, c) => a + total(c.rule!), 0) / n),
  };
  const callsOf = (what: string) => hundredths(m.awsCalls.filter((c) => c.what === what).length / n);
  return {
    perMillionUsd: hundredths(Object.values(perMillion).reduce((a, b) => a + b, 0)),
    wruPerElicitation: hundredths(wru),
    rruPerElicitation: hundredths(rru),
    wsMessagesPerElicitation: hundredths(wsMessages),
    lambdaInvocationsPerElicitation: lambda.invocationsPerElicitation,
    lambdaGbSecondsPerElicitation: Number(lambda.gbSecondsPerElicitation.toPrecision(3)),
    breakdownUsd: Object.fromEntries(Object.entries(perMillion).map(([k, v]) => [k, hundredths(v)])),
    provisioned: provisioned(perMillion, wru, rru, provisionedUtilization),
    dynamodb: {
      ruleCheck,
      callsPerElicitation: hundredths(m.dynamodb.length / n),
      failedCalls: m.dynamodb.filter((c) => c.failed).length,
      /** Queries that found nothing, charged the minimum read by the rule (DynamoDB Local reports 0 for them). */
      emptyReadsPerElicitation: hundredths(emptyReads.length / n),
      emptyReadUnitsPerElicitation: hundredths(sum(emptyReads) / n),
      byShape: byShape(m.dynamodb, n),
    },
    lambda: lambda.functions,
    scheduler: { created: callsOf("Scheduler.CreateSchedule"), deleted: callsOf("Scheduler.DeleteSchedule"), fired: hundredths(fired) },
    connectionMinutes: { modelled: runnerWaitMinutes, measuredLocally: hundredths(m.wsConnectionMinutes / n) },
    elicitations: n,
    errors: m.errors,
    prices,
    source:
      "capacity as DynamoDB Local reports it (ReturnConsumedCapacity INDEXES on every handler call, through a metering proxy on the DynamoDB endpoint), except what DynamoDB Local under-reports: transactions, by AWS's documented rules on the real item images, and Queries that find nothing, at the documented minimum read; invocations and durations from the Lambda stand-in; messages counted on the sockets",
  };
}

/** The headline counts of a run under other settings, beside the settings. */
export function deploymentSummary(model: ReturnType<typeof costModel>, deployment: CostDeployment) {
  const { perMillionUsd, wruPerElicitation, rruPerElicitation, wsMessagesPerElicitation, lambdaInvocationsPerElicitation, breakdownUsd, provisioned, elicitations, errors } = model;
  const { rateLimits, subscriberShards, history } = deployment;
  return {
    settings: { rateLimits, subscriberShards, history: history ?? "on" },
    perMillionUsd,
    wruPerElicitation,
    rruPerElicitation,
    wsMessagesPerElicitation,
    lambdaInvocationsPerElicitation,
    breakdownUsd,
    provisioned,
    elicitations,
    errors,
  };
}
