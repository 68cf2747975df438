/**
 * `npm run bench` in miniature (a few samples per phase, 20 runners, a few metered elicitations, the
 * cold start of the verdict and park functions), as a check that every figure is measured and written
 * with its ratio (badge push beside a hanging webhook target too), and that the load phase's and the cost phase's own bookkeeping holds
 * (the cost of a deployment without rate limits and with one subscriber shard too).
 * No time is asserted: speed is the bench's business, not the tests'.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { spreadOf } from "../bench/report.js";
import { longestChain, pathChain } from "../bench/cost/sequential.js";
import { pairedRatio } from "../bench/phases/cold-start.js";

const work = mkdtempSync(join(tmpdir(), "tollgate-bench-test-"));
const out = join(work, "mini.json");
let printed = "";
let report: any;

const knobs = {
  BENCH_VERDICTS: "30",
  BENCH_WARMUP: "5",
  BENCH_FLOOR_SAMPLES: "30",
  BENCH_BADGES: "10",
  BENCH_THINK_MS: "5",
  BENCH_LOAD_RUNNERS: "20",
  BENCH_LOAD_ELICITATIONS: "60",
  BENCH_HUMANS: "3",
  BENCH_LOAD_TIMEOUT_SECONDS: "60",
  BENCH_QUIET_WAIT_SECONDS: "0",
  BENCH_COST_ELICITATIONS: "8",
  BENCH_COLD_START_REPEATS: "1",
  BENCH_COLD_START_FUNCTIONS: "httpPostEvent,wsElicit",
  BENCH_OUT: out,
};

beforeAll(async () => {
  const child = spawn(process.execPath, ["--import", "tsx", "bench/run.ts"], { env: { ...process.env, ...knobs }, stdio: ["ignore", "pipe", "pipe"] });
  child.stdout.on("data", (chunk) => (printed += chunk));
  child.stderr.on("data", (chunk) => (printed += chunk));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  if (code !== 0) throw new Error(`npm run bench exited ${code}:\n${printed.slice(-2000)}`);
  report = JSON.parse(readFileSync(out, "utf8"));
}, 240_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

const summary = (n: number) => ({ n, p50: expect.any(Number), p99: expect.any(Number), max: expect.any(Number) });

it("measures the floor, the gateway and design floors, round trip, park and badge push, each with its count", () => {
  expect(report.floor).toMatchObject({ total: summary(30), wsEcho: summary(30), conditionalUpdate: summary(30) });
  expect(report.gatewayFloor).toMatchObject(summary(30));
  expect(report.designFloor).toMatchObject(summary(30));
  expect(report.roundTrip).toMatchObject(summary(30));
  expect(report.park).toMatchObject(summary(30));
  expect(report.badge).toMatchObject(summary(10));
  expect(report.roundTripErrors).toBe(0);
  expect(report.badgeErrors).toBe(0);
  for (const s of [report.floor.total, report.roundTrip, report.park, report.badge]) expect(s.p50 <= s.p99 && s.p99 <= s.max).toBe(true);
});

it("states each figure as a ratio to the floor measured in the same run", () => {
  for (const name of ["gatewayFloor", "designFloor", "roundTrip", "park", "badge"]) {
    expect(report.ratios[name].p50).toBeCloseTo(report[name].p50 / report.floor.total.p50, 1);
    expect(report.ratios[name].p99).toBeCloseTo(report[name].p99 / report.floor.total.p99, 1);
  }
  for (const name of ["roundTrip", "park", "badge"]) {
    expect(report.ratios[`${name}VsGatewayFloor`].p50).toBeCloseTo(report[name].p50 / report.gatewayFloor.p50, 1);
  }
});

it("measures badge push beside a hanging webhook target and without one in the same run, with their ratio", () => {
  const n = report.notify;
  expect(n.badgeWithoutTarget).toMatchObject(summary(10));
  expect(n.badgeWithHangingTarget).toMatchObject(summary(10));
  expect(n.errors).toBe(0);
  // Every raise and cancel on the session the target hears of left a request hanging at its receiver.
  expect(n.hangingRequests).toBeGreaterThanOrEqual(20);
  expect(n.badgeWithHangingTargetVsWithout.p50).toBeCloseTo(n.badgeWithHangingTarget.p50 / n.badgeWithoutTarget.p50, 1);
  expect(n.badgeWithHangingTargetVsWithout.p99).toBeCloseTo(n.badgeWithHangingTarget.p99 / n.badgeWithoutTarget.p99, 1);
  expect(n.blockP50s.without.length).toBe(n.blockP50s.with.length);
  expect(printed).toMatch(/badge push, hanging target beside\s+10\s/);
});

it("runs the load with every verdict delivered once, no errors, exact badges, and the runtime's peak memory", () => {
  expect(report.load).toMatchObject({ runners: 20, humans: 3, elicitations: 60, verdicts: 60, errors: 0, lost: 0, doubled: 0, wrongVerdicts: 0, badgesExact: true });
  expect(report.load.maxParked).toBe(20);
  expect(report.load.memoryPerParkedRunnerKiB).toMatchObject({ runtime: expect.any(Number), dynamodbLocal: expect.any(Number) });
  expect(report.load.throughput).toBeGreaterThan(0);
  expect(report.memory.runtimeNode.peakMiB).toBeGreaterThan(0);
  expect(report.runtimeHealth).toMatchObject({ streamFailures: 0, loggedErrors: 0 });
});

it("records its knobs and draws the CDF next to the JSON, and prints the table", () => {
  expect(report.knobs).toMatchObject({ streamPollMs: expect.any(Number), streamBatchSize: expect.any(Number), verdicts: 30, loadRunners: 20 });
  expect(existsSync(join(work, "latency-cdf-mini.svg"))).toBe(true);
  expect(readFileSync(join(work, "latency-cdf-mini.svg"), "utf8")).toContain("verdict round trip");
  expect(printed).toMatch(/verdict round trip\s+30\s/);
});

it("measures the cost per elicitation from counted capacity, invocations and messages, and prices it", () => {
  const cost = report.cost;
  expect(cost).toMatchObject({
    elicitations: 8,
    errors: 0,
    perMillionUsd: expect.any(Number),
    wruPerElicitation: expect.any(Number),
    rruPerElicitation: expect.any(Number),
    wsMessagesPerElicitation: expect.any(Number),
  });
  for (const key of ["wruPerElicitation", "rruPerElicitation", "wsMessagesPerElicitation", "lambdaInvocationsPerElicitation"]) expect(cost[key]).toBeGreaterThan(0);
  const summed = Object.values(cost.breakdownUsd as Record<string, number>).reduce((a, b) => a + b, 0);
  expect(Math.abs(summed - cost.perMillionUsd)).toBeLessThan(0.1);
  // The documented rules, applied to the real item images, give what DynamoDB Local reports for the single-item writes.
  // The images are read around each call, so a stream reaction writing the same session item in between can shift
  // one call's rule by a unit in a run this short; a rule that left out an index or the rounding would be far off.
  const { singleWritesByRule, singleWritesReported } = cost.dynamodb.ruleCheck;
  expect(singleWritesReported).toBeGreaterThan(0);
  expect(Math.abs(singleWritesByRule - singleWritesReported)).toBeLessThanOrEqual(0.15 * singleWritesReported);
  // DynamoDB Local reports 0 for a Query that finds nothing (a subscriber shard without subscribers): AWS's minimum read counts.
  const { emptyReadsPerElicitation, emptyReadUnitsPerElicitation } = cost.dynamodb;
  expect(emptyReadsPerElicitation).toBeGreaterThan(0);
  expect(emptyReadUnitsPerElicitation).toBeGreaterThanOrEqual(0.5 * emptyReadsPerElicitation - 0.01);
  expect(cost.rruPerElicitation).toBeGreaterThanOrEqual(emptyReadUnitsPerElicitation);
  const shapes = cost.dynamodb.byShape.map((s: { shape: string }) => s.shape);
  // A refused condition is part of the design (a race the condition settles, charged by the model); any other failure is not.
  for (const shape of shapes) {
    const why = shape.match(/\((\w+)\)$/)?.[1];
    if (why) expect(["ConditionalCheckFailedException", "TransactionCanceledException"], shape).toContain(why);
  }
  expect(shapes.some((s: string) => s.startsWith("TransactWriteItems"))).toBe(true);
  expect(cost.lambda.map((f: { fn: string }) => f.fn)).toEqual(expect.arrayContaining(["wsElicit", "httpPostEvent", "streams"]));
});

it("measures a deployment without per-token rate limits, with one subscriber shard and no history beside the default one", () => {
  const { cost } = report;
  const lean = cost.leanDeployment;
  expect(lean).toMatchObject({ settings: { rateLimits: { raisesPerMinute: 0, verdictsPerMinute: 0 }, subscriberShards: 1, history: "off" }, elicitations: 8, errors: 0 });
  // No rate counter in either transaction (2 items x 2 WRU) and no history index entry (2 WRU): 6 WRU fewer per elicitation.
  expect(cost.wruPerElicitation - lean.wruPerElicitation).toBeCloseTo(6, 0);
  // One subscriber shard: no Query of an empty shard (three of the default four, a batch each for the raise and the verdict).
  expect(lean.rruPerElicitation).toBeLessThan(cost.rruPerElicitation - 2);
  expect(lean.wsMessagesPerElicitation).toBe(cost.wsMessagesPerElicitation);
  expect(lean.perMillionUsd).toBeLessThan(cost.perMillionUsd);
});

it("prices the same counted units on a provisioned table at auto scaling's target utilisation", () => {
  const { cost } = report;
  const { prices } = cost;
  for (const deployment of [cost, cost.leanDeployment]) {
    const p = deployment.provisioned;
    expect(p.utilization).toBe(0.7);
    // Each unit-hour serves 3,600 units, 70% of them used: recomputed from the counts and the published prices.
    expect(p.dynamodbWritesUsd).toBeCloseTo((deployment.wruPerElicitation * prices.provisionedWriteUnitHour * 1e6) / 3600 / 0.7, 1);
    expect(p.dynamodbReadsUsd).toBeCloseTo((deployment.rruPerElicitation * prices.provisionedReadUnitHour * 1e6) / 3600 / 0.7, 1);
    // Only the DynamoDB lines change: the rest of the bill is the on-demand one.
    const { dynamodbWrites, dynamodbReads } = deployment.breakdownUsd;
    expect(p.perMillionUsd).toBeCloseTo(deployment.perMillionUsd - dynamodbWrites - dynamodbReads + p.dynamodbWritesUsd + p.dynamodbReadsUsd, 1);
    expect(p.perMillionUsd).toBeLessThan(deployment.perMillionUsd);
    // At the break-even utilisation the provisioned DynamoDB lines cost what on-demand's do.
    expect(((p.dynamodbWritesUsd + p.dynamodbReadsUsd) * p.utilization) / p.breakEvenUtilization).toBeCloseTo(dynamodbWrites + dynamodbReads, 0);
  }
});

it("counts the sequential AWS calls of the verdict, the park and the badge", () => {
  for (const path of ["verdict", "park", "badge"]) {
    const p = report.cost.sequentialCalls[path];
    expect(Number.isInteger(p.sequential) && p.sequential >= 1).toBe(true);
    expect(p.sequential).toBeLessThanOrEqual(p.calls);
    expect(p.example.length).toBeGreaterThanOrEqual(p.sequential);
  }
  expect(report.cost.sequentialCalls.verdict.example.some((c: string) => c.includes("DynamoDB."))).toBe(true);
});

it("measures each chosen function's cold start beside its bundle size, against a twin holding only the clients it uses", () => {
  const cold = report.coldStart;
  expect(Object.keys(cold.functions).sort()).toEqual(["httpPostEvent", "httpPostEventClientsOnly", "httpPostEventWithSourceMaps", "wsElicit", "wsElicitClientsOnly"]);
  for (const f of Object.values(cold.functions) as { bundleKiB: number; initMs: number; coldMs: number; outcome: unknown }[]) {
    expect(f.bundleKiB).toBeGreaterThan(0);
    expect(f.initMs).toBeGreaterThan(0);
  }
  // The twins hold what the catalog lets each call: the verdict checks tokens (the secret), the park does not.
  expect(cold.clientsOnly).toEqual({ httpPostEventClientsOnly: ["dynamodb", "connections", "secrets"], wsElicitClientsOnly: ["dynamodb", "connections"] });
  expect(cold.functions.httpPostEventClientsOnly.bundleKiB).toBeGreaterThan(cold.functions.wsElicitClientsOnly.bundleKiB);
  // Each got past its schema to its first DynamoDB call, which found nothing.
  expect(cold.functions.httpPostEvent.outcome).toBe("not_found");
  expect(cold.functions.wsElicit.outcome).toBe("not_found");
  // Each ratio pairs the two bundles round by round: recomputed here from each round's cold start.
  const paired = (name: string, base: string) => pairedRatio(cold.functions[name].roundsMs, cold.functions[base].roundsMs);
  expect(cold.functions.httpPostEvent.roundsMs).toHaveLength(cold.repeats);
  expect(cold.verdictVsClientsOnly).toBe(paired("httpPostEvent", "httpPostEventClientsOnly"));
  expect(cold.parkVsClientsOnly).toBe(paired("wsElicit", "wsElicitClientsOnly"));
});

it("starts every bundle as the stack does by default, and the verdict once more as tollgate:sourceMaps does", () => {
  const cold = report.coldStart;
  for (const [name, f] of Object.entries(cold.functions) as [string, { sourceMaps: boolean }][]) expect(f.sourceMaps, name).toBe(name === "httpPostEventWithSourceMaps");
  expect(cold.functions.httpPostEventWithSourceMaps.outcome).toBe("not_found");
  expect(cold.functions.httpPostEventWithSourceMaps.bundleKiB).toBe(cold.functions.httpPostEvent.bundleKiB);
  expect(cold.verdictWithSourceMapsVsDefault).toBe(pairedRatio(cold.functions.httpPostEventWithSourceMaps.roundsMs, cold.functions.httpPostEvent.roundsMs));
});

it("sets each headline figure beside the previous run's", () => {
  const previous = { generatedAt: "before", machine: { commit: "abc" }, roundTrip: { p50: 10 }, cost: { perMillionUsd: 20 } };
  const spread = spreadOf(previous, { roundTrip: { p50: 11 }, cost: { perMillionUsd: 19 }, park: { p50: 3 } });
  expect(spread).toEqual({
    previousRun: "before",
    previousCommit: "abc",
    figures: { "roundTrip.p50": { previous: 10, now: 11, changePercent: 10 }, "cost.perMillionUsd": { previous: 20, now: 19, changePercent: -5 } },
  });
});

it("counts a path's chain function by function, so a stream reaction seen overlapping the write still follows it", () => {
  const call = (fn: string, start: number, end: number) => ({ fn, what: "x", start, end });
  // The poller read the record while the transaction's answer was still on its way back.
  const calls = [call("wsElicit", 0, 10), call("streams", 8, 12), call("streams", 8, 11), call("streams", 13, 14)];
  expect(longestChain(calls)).toBe(2);
  expect(pathChain(calls, ["wsElicit", "streams"])).toBe(3);
  expect(pathChain(calls, ["wsElicit"])).toBe(1);
});

it("pairs two bundles' cold starts round by round, so a slow round moves both sides of its ratio", () => {
  // A slow stretch caught the first bundle in two rounds and the second in one: the ratio of medians would say 3.75.
  expect(pairedRatio([300, 300, 100], [240, 80, 80])).toBe(1.25);
  expect(pairedRatio([120, 130], [100, 100])).toBe(1.3);
});
