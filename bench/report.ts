/**
 * What a run writes: the JSON (every figure, each ratio to the floor of the same run, the knobs, the
 * machine), the CDF picture next to it, and the table on stdout.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative } from "node:path";
import { root } from "../local/lambda.js";
import type { Config } from "./config.js";
import { ratio, type Summary } from "./stats.js";
import { cdfSvg } from "./svg.js";

/** Each headline latency as a ratio of the floor's p50 and p99. */
export function ratiosOf(results: Record<string, unknown>) {
  const floor = (results.floor as { total: Summary } | undefined)?.total;
  const ratios: Record<string, { p50: number; p99: number }> = {};
  if (!floor?.p50) return ratios;
  for (const name of ["gatewayFloor", "designFloor", "roundTrip", "park", "badge"] as const) {
    const s = results[name] as Summary | undefined;
    if (s) ratios[name] = { p50: ratio(s.p50, floor.p50), p99: ratio(s.p99, floor.p99) };
  }
  const gateway = results.gatewayFloor as Summary | undefined;
  for (const name of ["roundTrip", "park", "badge"] as const) {
    const s = results[name] as Summary | undefined;
    if (s && gateway) ratios[`${name}VsGatewayFloor`] = { p50: ratio(s.p50, gateway.p50), p99: ratio(s.p99, gateway.p99) };
  }
  return ratios;
}

/** A path as the JSON records it: relative to the repository, or a file's name alone when it lies outside. */
function recorded(path: string): string {
  const inside = relative(root, path);
  return inside.startsWith("..") || isAbsolute(inside) ? `${basename(path)} (outside the repository)` : inside;
}

/** The knobs as the JSON records them: paths relative to the repository. */
export function knobsOf(config: Config) {
  return {
    dynamodbLocal: config.dynamodb === "disk" ? "disk (-dbPath in a temp dir, -sharedDb)" : "in memory (-inMemory, -sharedDb)",
    streamPollMs: Number(config.runtimeEnv.TOLLGATE_STREAM_POLL_MS ?? 50),
    streamBatchSize: Number(config.runtimeEnv.TOLLGATE_STREAM_BATCH_SIZE ?? 100),
    ...config,
    profileDir: config.profileDir ? recorded(config.profileDir) : undefined,
    out: recorded(config.out),
    previous: recorded(config.previous),
  };
}

interface Output {
  machine: { cores: number; cpu: string; node: string };
  generatedAt: string;
  knobs: { dynamodb: string; out: string };
  cdf: Record<string, [number, number][]>;
}

export function writeReport(output: Output & Record<string, unknown>, out: string) {
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(output, null, 2)}\n`);
  drawCdf(output, out);
}

const curves = [
  { key: "floor", label: "floor: ws echo + conditional UpdateItem", color: "#6b7280", dashed: true },
  { key: "gatewayFloor", label: "gateway floor: HTTP + UpdateItem + @connections", color: "#f59e0b", dashed: true },
  { key: "designFloor", label: "design floor: echo + Get + Txn(3)", color: "#a855f7", dashed: true },
  { key: "roundTrip", label: "verdict round trip (POST → promise)", color: "#2563eb" },
  { key: "park", label: "park (elicit → elicitation.parked)", color: "#16a34a" },
  { key: "badge", label: "badge push (raise → session.badge)", color: "#dc2626" },
];

/** The CDF picture next to the JSON (bench/results/latency-cdf.svg for latest.json). */
export function drawCdf(output: Output, out: string) {
  const drawn = curves.filter((c) => output.cdf[c.key]?.length);
  if (drawn.length === 0) return;
  const m = output.machine;
  const svg = cdfSvg(
    "Tollgate local runtime: latency CDF against the floor",
    `${m.cores} cores, ${m.cpu.replace(/\s+/g, " ")}, Node ${m.node}, DynamoDB Local ${output.knobs.dynamodb}; ${output.generatedAt.slice(0, 10)}`,
    drawn.map((c) => ({ label: c.label, color: c.color, dashed: c.dashed, points: output.cdf[c.key] })),
  );
  const name = out.endsWith("latest.json")
    ? "latency-cdf.svg"
    : `latency-cdf-${out
        .split("/")
        .pop()!
        .replace(/\.json$/, ".svg")}`;
  writeFileSync(join(dirname(out), name), svg);
}

function latencyLines(o: Record<string, any>): string[] {
  const row = (name: string, s: Summary | undefined, r?: { p50: number; p99: number }) =>
    s
      ? `${name.padEnd(34)} ${s.n.toString().padStart(6)} ${s.p50.toFixed(2).padStart(8)} ${s.p99.toFixed(2).padStart(8)} ${s.max.toFixed(2).padStart(9)}   ${r ? `${r.p50.toFixed(2)}x / ${r.p99.toFixed(2)}x` : ""}`
      : "";
  return [
    "",
    `${"latency (ms)".padEnd(34)} ${"n".padStart(6)} ${"p50".padStart(8)} ${"p99".padStart(8)} ${"max".padStart(9)}   vs floor p50 / p99`,
    row("floor (ws echo + cond. UpdateItem)", o.floor?.total),
    row("  ws echo", o.floor?.wsEcho),
    row("  conditional UpdateItem", o.floor?.conditionalUpdate),
    row("gateway floor (HTTP+Update+push)", o.gatewayFloor, o.ratios?.gatewayFloor),
    row("  HTTP request (401)", o.gatewayFloorParts?.httpRequest),
    row("  @connections push to frame", o.gatewayFloorParts?.push),
    row("design floor (echo+Get+Txn3)", o.designFloor, o.ratios?.designFloor),
    row("  GetItem", o.designFloorParts?.getItem),
    row("  TransactWriteItems(3)", o.designFloorParts?.transactWrite),
    row("verdict round trip", o.roundTrip, o.ratios?.roundTrip),
    row("park", o.park, o.ratios?.park),
    row("badge push", o.badge, o.ratios?.badge),
    row("badge push on resolve", o.badgeOnResolve),
    row("badge push, no target", o.notify?.badgeWithoutTarget),
    row("badge push, hanging target beside", o.notify?.badgeWithHangingTarget),
    ...(o.notify ? hangingTargetLines(o.notify) : []),
    row("floor again (after)", o.floorAfter),
  ].filter(Boolean);
}

function hangingTargetLines(n: Record<string, any>): string[] {
  const r = n.badgeWithHangingTargetVsWithout;
  return [
    `  with the hanging target / without: p50 ${r.p50}x, p99 ${r.p99}x (${n.hangingRequests} requests left hanging; block p50s without ${n.blockP50s.without.join(", ")}, with ${n.blockP50s.with.join(", ")})`,
  ];
}

function loadLines(l: Record<string, any>): string[] {
  return [
    "",
    `load: ${l.runners} runners (${l.parkedAtOnce} parked at once), ${l.elicitations} elicitations, ${l.humans} humans`,
    `  throughput ${l.throughput} verdicts/s over ${l.seconds} s; round trip p50 ${l.roundTrip.p50} ms, p99 ${l.roundTrip.p99} ms, max ${l.roundTrip.max} ms`,
    `  park p50 ${l.park.p50} ms, p99 ${l.park.p99} ms (the first wave, ${l.runners} at once: p50 ${l.parkFirstWave.p50} ms, p99 ${l.parkFirstWave.p99} ms, all parked in ${l.parkAllSeconds} s)`,
    `  errors ${l.errors}, lost ${l.lost}, doubled ${l.doubled}, wrong ${l.wrongVerdicts}, badges exact ${l.badgesExact} (${JSON.stringify(l.badges)})`,
    `  CPU during the run: runtime ${l.cpuSeconds.runtime} s, DynamoDB Local ${l.cpuSeconds.dynamodbLocal} s`,
    ...(l.memoryPerParkedRunnerKiB ? [`  memory per parked runner: runtime ${l.memoryPerParkedRunnerKiB.runtime} KiB, DynamoDB Local ${l.memoryPerParkedRunnerKiB.dynamodbLocal} KiB`] : []),
  ];
}

function costLines(c: Record<string, any>): string[] {
  const seq = c.sequentialCalls ?? {};
  return [
    "",
    `cost on AWS: $${c.perMillionUsd} per million elicitations; ${c.wruPerElicitation} WRU, ${c.rruPerElicitation} RRU (${c.dynamodb.emptyReadUnitsPerElicitation} of it Queries that found nothing), ${c.wsMessagesPerElicitation} WebSocket messages, ${c.lambdaInvocationsPerElicitation} invocations, ${c.lambdaGbSecondsPerElicitation} GB-s each`,
    `  ${Object.entries(c.breakdownUsd)
      .map(([k, v]) => `${k} $${v}`)
      .join(", ")}`,
    `sequential AWS calls: verdict ${seq.verdict?.sequential}, park ${seq.park?.sequential}, badge ${seq.badge?.sequential} (plus the stream's hop)`,
    ...(c.leanDeployment ? [leanLine(c.leanDeployment)] : []),
    ...(c.provisioned ? [provisionedLine(c)] : []),
  ];
}

function provisionedLine(c: Record<string, any>): string {
  const p = c.provisioned;
  const lean = c.leanDeployment?.provisioned ? `, the lean deployment $${c.leanDeployment.provisioned.perMillionUsd}` : "";
  return `  on a provisioned table at ${Math.round(p.utilization * 100)}% utilisation: $${p.perMillionUsd}${lean} (cheaper than on-demand above ${Math.round(p.breakEvenUtilization * 1000) / 10}%)`;
}

function leanLine(l: Record<string, any>): string {
  return `  without per-token rate limits, with ${l.settings.subscriberShards} subscriber shard, history ${l.settings.history}: $${l.perMillionUsd}; ${l.wruPerElicitation} WRU, ${l.rruPerElicitation} RRU, ${l.wsMessagesPerElicitation} messages`;
}

function coldStartLines(c: Record<string, any>): string[] {
  return [
    "",
    `cold start (bundle KiB, init ms + first event ms, median of ${c.repeats}):`,
    ...Object.entries(c.functions as Record<string, any>).map(([name, f]) => `  ${name.padEnd(26)} ${String(f.bundleKiB).padStart(8)} KiB  ${f.initMs} + ${f.firstEventMs} = ${f.coldMs} ms`),
    `  verdict ${c.verdictVsClientsOnly}x, park ${c.parkVsClientsOnly}x their clients-only twins`,
    ...(c.verdictWithSourceMapsVsDefault ? [`  the verdict with source maps on (tollgate:sourceMaps): ${c.verdictWithSourceMapsVsDefault}x its cold start as deployed by default`] : []),
  ];
}

function cpuLines(cpu: Record<string, any>): string[] {
  if (Object.keys(cpu).length === 0) return [];
  return [
    "",
    "CPU seconds per phase: runtime / DynamoDB Local / bench / other processes on this machine (cores busy)",
    ...Object.entries(cpu).map(
      ([phase, c]) =>
        `  ${phase.padEnd(10)} ${c.runtime} / ${c.dynamodbLocal} / ${c.bench} / ${c.otherProcesses} (${c.otherProcessesCores}) over ${c.wallSeconds} s${c.perLifecycleMs ? `; per raise+verdict: runtime ${c.perLifecycleMs.runtime} ms, DynamoDB Local ${c.perLifecycleMs.dynamodbLocal} ms` : ""}`,
    ),
  ];
}

export function printTable(o: Record<string, any>) {
  const lines = [
    ...latencyLines(o),
    ...(o.load ? loadLines(o.load) : []),
    ...(o.cost ? costLines(o.cost) : []),
    ...(o.coldStart ? coldStartLines(o.coldStart) : []),
    ...cpuLines(o.cpu ?? {}),
    "",
    `memory peak: runtime (node) ${o.memory.runtimeNode.peakMiB} MiB; DynamoDB Local (java) ${o.memory.dynamodbLocalJava?.peakMiB ?? "?"} MiB`,
    `runtime health: stream failures ${o.runtimeHealth.streamFailures}, logged errors ${o.runtimeHealth.loggedErrors}`,
    `took ${o.durationSeconds} s; written ${o.knobs.out}`,
    "",
  ];
  process.stdout.write(lines.join("\n"));
}

/** The headline figures, by the path of their key in the JSON. */
export const headlines = [
  "floor.total.p50",
  "gatewayFloor.p50",
  "roundTrip.p50",
  "park.p50",
  "badge.p50",
  "notify.badgeWithoutTarget.p50",
  "notify.badgeWithHangingTarget.p50",
  "notify.badgeWithHangingTargetVsWithout.p50",
  "load.throughput",
  "cost.perMillionUsd",
  "cost.wruPerElicitation",
  "coldStart.functions.httpPostEvent.coldMs",
  "coldStart.functions.wsElicit.coldMs",
];

const at = (o: unknown, path: string): number | undefined => {
  const v = path.split(".").reduce<any>((x, k) => x?.[k], o);
  return typeof v === "number" ? v : undefined;
};

/** Run to run: each headline figure of this run beside the previous run's, and how far apart they are. */
export function spreadOf(previous: Record<string, unknown>, current: Record<string, unknown>) {
  const figures: Record<string, { previous: number; now: number; changePercent: number }> = {};
  for (const path of headlines) {
    const [before, now] = [at(previous, path), at(current, path)];
    if (before !== undefined && now !== undefined) figures[path] = { previous: before, now, changePercent: Math.round((1000 * (now - before)) / before) / 10 };
  }
  return { previousRun: previous.generatedAt, previousCommit: (previous.machine as { commit?: string } | undefined)?.commit, figures };
}

/**
 * A run of some of the phases (`BENCH_PHASES`) writing over the file it compares with replaces only
 * their figures: every other section stays as the run that measured it left it, and `measured` says
 * which run (by `generatedAt`) measured each phase. The top-level machine, knobs and memory are this run's.
 */
export function mergeRuns(previous: Record<string, unknown> | undefined, output: Record<string, unknown>, phases: string[]) {
  const measured = Object.fromEntries(phases.map((phase) => [phase, output.generatedAt]));
  if (!previous) return { ...output, measured };
  const merged: Record<string, unknown> = { ...previous, ...output };
  for (const key of ["ratios", "cpu", "cdf"]) merged[key] = { ...(previous[key] as object | undefined), ...(output[key] as object | undefined) };
  merged.measured = { ...(previous.measured as object | undefined), ...measured };
  return merged;
}
