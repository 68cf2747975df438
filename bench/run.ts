/**
 * `npm run bench`: Tollgate's round trip against its floor, and many parked runners.
 *
 * DynamoDB Local is started here; the runtime (`local/main.ts`) runs as a child process against it
 * (TOLLGATE_DYNAMODB_ENDPOINT), so the floor is measured on the same instance and the runtime's
 * memory can be read from /proc. Runners, humans and the inbox subscriber live in this process.
 * Prints a table and writes bench/results/latest.json and bench/results/latency-cdf.svg.
 * Every knob is an environment variable (bench/config.ts, docs/performance.md).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { env } from "../functions/shared/env.js";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { freePort, startDynamoLocal } from "../local/dynamodb.js";
import { ensureTables } from "../local/tables.js";
import { mintToken } from "../local/tokens.js";
import { httpClient } from "./clients.js";
import { config, log, SECRET, TENANT } from "./config.js";
import { machine, memoryWatch, waitForQuiet } from "./meters.js";
import { drawCdf, knobsOf, mergeRuns, printTable, ratiosOf, spreadOf, writeReport } from "./report.js";
import { findDynamoJava, memoryOf, startChildRuntime, type ChildRuntime } from "./runtime.js";
import { runPhases, type Stage } from "./stage.js";
import { cdfPoints, hundredths } from "./stats.js";

/** DynamoDB Local and the runtime child against it. */
async function startStack(work: string) {
  log(`DynamoDB Local (${config.dynamodb}) starting`);
  const dynamo = await startDynamoLocal(config.dynamodb === "disk" ? { dataDir: join(work, "dynamodb") } : {});
  const javaPid = findDynamoJava();
  const port = await freePort();
  if (config.profileDir) mkdirSync(config.profileDir, { recursive: true });
  log(`runtime starting on port ${port} (${work})`);
  const runtime = await startChildRuntime({
    port,
    dataDir: work,
    jwtSecret: SECRET,
    dynamoEndpoint: dynamo.endpoint,
    env: config.runtimeEnv,
    nodeFlags: config.profileDir ? ["--cpu-prof", `--cpu-prof-dir=${config.profileDir}`] : [],
    readyTimeoutMs: 120_000,
  });
  return { dynamo, javaPid, runtime };
}

/** What the runtime's log and stream failure file say about its health over the run. */
function runtimeHealth(runtime: ChildRuntime, work: string) {
  const runtimeLog = readFileSync(runtime.logFile, "utf8");
  const failuresFile = join(work, "stream-failures.jsonl");
  const streamFailures = existsSync(failuresFile) ? readFileSync(failuresFile, "utf8").split("\n").filter(Boolean).length : 0;
  const loggedErrors = runtimeLog.split("\n").filter((l) => /"level":"ERROR"|unexpected failure|stream poller:|streams handler failed|target failed/.test(l));
  return { streamFailures, loggedErrors: loggedErrors.length, loggedErrorSamples: loggedErrors.slice(0, 5) };
}

function memoryReport(runtime: ReturnType<typeof memoryOf>, java: ReturnType<typeof memoryOf>, peak: { runtime: number; java: number }) {
  return {
    runtimeNode: {
      peakMiB: hundredths(Math.max(runtime?.peakMiB ?? 0, peak.runtime)),
      endMiB: hundredths(runtime?.rssMiB ?? NaN),
      note: "VmHWM of the runtime process (node local/main.ts): gateway, stand-ins, stream poller and every handler",
    },
    dynamodbLocalJava: java
      ? {
          peakMiB: hundredths(Math.max(java.peakMiB, peak.java)),
          endMiB: hundredths(java.rssMiB),
          note: "VmHWM of DynamoDB Local's java process (a child of the bench, shared by the runtime and the floor)",
        }
      : undefined,
  };
}

/** The cost phase, after the runtime child has stopped: its own runtime in this process, on its own table. */
async function cost(dynamoEndpoint: string, work: string) {
  const { costPhase, deployments } = await import("./phases/cost.js");
  const measured = await costPhase(dynamoEndpoint, join(work, "cost"), config.costElicitations, config.thinkMs, deployments.byDefault);
  const lean = await costPhase(dynamoEndpoint, join(work, "cost-lean"), config.costElicitations, config.thinkMs, deployments.lean);
  const { costModel, deploymentSummary } = await import("./cost/model.js"); // reads the stack's memory sizes (loads aws-cdk-lib)
  const utilization = config.provisionedUtilization / 100;
  return {
    ...costModel(measured, config.runnerWaitMinutes, utilization),
    sequentialCalls: measured.paths,
    leanDeployment: deploymentSummary(costModel(lean, config.runnerWaitMinutes, utilization), deployments.lean),
  };
}

/**
 * Cold starts, in the environment CDK would give the functions, over the cost phase's table, straight to DynamoDB Local.
 * The table is made here when the cost phase did not run, so each function's first event takes its real path.
 */
async function coldStarts(dynamoEndpoint: string, work: string) {
  const { coldStartPhase } = await import("./phases/cold-start.js");
  const { TABLE } = await import("./phases/cost.js");
  const credentials = { accessKeyId: "local", secretAccessKey: "local" };
  await ensureTables(new DynamoDBClient({ endpoint: dynamoEndpoint, region: "us-east-1", credentials }), TABLE);
  const functionEnv = {
    AWS_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    AWS_ENDPOINT_URL_DYNAMODB: dynamoEndpoint,
    [env.table]: TABLE,
    [env.connectionsUrl]: "http://127.0.0.1:9",
    [env.jwtSecret]: SECRET,
  };
  return coldStartPhase(join(work, "cold"), { ...process.env, ...functionEnv }, config.coldStartRepeats, config.coldStartFunctions);
}

async function main() {
  const started = Date.now();
  const othersAtStart = await waitForQuiet(config.quietWaitSeconds);
  const work = mkdtempSync(join(tmpdir(), "tollgate-bench-"));
  const { dynamo, javaPid, runtime } = await startStack(work);
  const watch = memoryWatch(runtime.pid, javaPid);
  const stage: Stage = {
    dynamoEndpoint: dynamo.endpoint,
    runtime,
    javaPid,
    http: httpClient(runtime.httpUrl),
    runnerToken: await mintToken(SECRET, { sub: "bench-runner", tenant: TENANT, role: "runner" }),
    humanToken: await mintToken(SECRET, { sub: "bench-human", tenant: TENANT, role: "human" }),
    results: {},
    samples: {},
    cpu: {},
  };
  try {
    await runPhases(stage);
  } finally {
    watch.stop();
    stage.http.close();
  }
  const memory = memoryReport(memoryOf(runtime.pid), javaPid ? memoryOf(javaPid) : undefined, watch.peak);
  await runtime.stop();
  const health = runtimeHealth(runtime, work);
  await dynamo.stop();
  // A fresh DynamoDB Local for the cost and cold start phases: after a load of 10,000 runners the first
  // one held 60,000 items and a stream of 250,000 records, and crawled even once its tables were deleted.
  if (config.phases.includes("cost") || config.phases.includes("coldstart")) {
    const fresh = await startDynamoLocal(config.dynamodb === "disk" ? { dataDir: join(work, "dynamodb-cost") } : {});
    if (config.phases.includes("cost")) stage.results.cost = await cost(fresh.endpoint, work);
    if (config.phases.includes("coldstart")) stage.results.coldStart = await coldStarts(fresh.endpoint, work);
    await fresh.stop();
  }
  if (!process.env.BENCH_KEEP) rmSync(work, { recursive: true, force: true });

  const output = {
    generatedAt: new Date().toISOString(),
    durationSeconds: Math.round((Date.now() - started) / 1000),
    machine: { ...machine(), otherProcessesCoresAtStart: othersAtStart },
    knobs: knobsOf(config),
    ...stage.results,
    ratios: ratiosOf(stage.results),
    memory,
    cpu: stage.cpu,
    runtimeHealth: health,
    cdf: Object.fromEntries(Object.entries(stage.samples).map(([k, v]) => [k, cdfPoints(v)])),
  };
  const previous = existsSync(config.previous) ? JSON.parse(readFileSync(config.previous, "utf8")) : undefined;
  const measured = { ...output, ...(previous ? { spread: spreadOf(previous, output) } : {}) };
  writeReport(mergeRuns(config.previous === config.out ? previous : undefined, measured, config.phases) as typeof output, config.out);
  printTable(output);
}

// A bench stopped by a signal still takes DynamoDB Local and the runtime down with it (their exit hooks).
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => process.exit(130));

// `npx tsx bench/run.ts --svg`: redraw the picture (and print the table) from the JSON alone.
const redraw = process.argv.includes("--svg");
(redraw
  ? Promise.resolve().then(() => {
      const output = JSON.parse(readFileSync(config.out, "utf8"));
      drawCdf(output, config.out);
      printTable(output);
    })
  : main()
).then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
