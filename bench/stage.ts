/**
 * The phases of one run in order, each recording its figures (summaries, CDF samples, CPU per phase)
 * into the stage it is given.
 */
import { config, log } from "./config.js";
import type { httpClient } from "./clients.js";
import { cpuMeter, waitForIdle } from "./meters.js";
import { badgePhase } from "./phases/badge.js";
import { floorPhase } from "./phases/floor.js";
import { gatewayFloorPhase } from "./phases/gateway-floor.js";
import { hangingTargetPhase } from "./phases/hanging-target.js";
import { loadPhase } from "./phases/load.js";
import { roundTripPhase } from "./phases/roundtrip.js";
import type { ChildRuntime } from "./runtime.js";
import { hundredths, summarize } from "./stats.js";

export interface Stage {
  dynamoEndpoint: string;
  runtime: ChildRuntime;
  javaPid: number | undefined;
  http: ReturnType<typeof httpClient>;
  runnerToken: string;
  humanToken: string;
  results: Record<string, unknown>;
  samples: Record<string, number[]>;
  cpu: Record<string, unknown>;
}

async function floors(s: Stage) {
  log(`floor: ${config.floorSamples} samples`);
  const meter = cpuMeter(s.runtime.pid, s.javaPid);
  const floor = await floorPhase(s.dynamoEndpoint, config.floorSamples, "main");
  s.samples.floor = floor.total;
  s.samples.designFloor = floor.design;
  s.results.floor = { total: summarize(floor.total), wsEcho: summarize(floor.echo), conditionalUpdate: summarize(floor.update) };
  s.results.designFloor = summarize(floor.design);
  s.results.designFloorParts = { getItem: summarize(floor.designGet), transactWrite: summarize(floor.designTransaction) };
  const gateway = await gatewayFloorPhase(s.runtime, s.dynamoEndpoint, s.runnerToken, Math.min(config.floorSamples, 1000), "main");
  s.samples.gatewayFloor = gateway.total;
  s.results.gatewayFloor = summarize(gateway.total);
  s.results.gatewayFloorParts = { httpRequest: summarize(gateway.httpHop), push: summarize(gateway.push) };
  s.cpu.floor = meter();
}

async function roundTrips(s: Stage) {
  log(`round trip: ${config.verdicts} verdicts`);
  const meter = cpuMeter(s.runtime.pid, s.javaPid);
  const rt = await roundTripPhase({ wsUrl: s.runtime.wsUrl, http: s.http, runnerToken: s.runnerToken, humanToken: s.humanToken, count: config.verdicts, session: "bench_rt", thinkMs: config.thinkMs });
  const used = meter();
  const perLifecycle = (seconds: number) => hundredths((1000 * seconds) / config.verdicts);
  s.cpu.roundTrip = { ...used, perLifecycleMs: { runtime: perLifecycle(used.runtime), dynamodbLocal: perLifecycle(used.dynamodbLocal) } };
  s.samples.roundTrip = rt.roundTrip;
  s.samples.park = rt.park;
  s.results.roundTrip = summarize(rt.roundTrip);
  s.results.park = summarize(rt.park);
  s.results.httpReply = summarize(rt.httpReply);
  s.results.roundTripErrors = rt.errors;
}

async function badges(s: Stage) {
  log(`badge push: ${config.badges} raises`);
  const meter = cpuMeter(s.runtime.pid, s.javaPid);
  const b = await badgePhase(s.runtime.wsUrl, s.runnerToken, s.humanToken, config.badges, config.thinkMs);
  s.cpu.badge = meter();
  s.samples.badge = b.raised;
  s.results.badge = summarize(b.raised);
  s.results.badgeOnResolve = summarize(b.resolved);
  s.results.badgeErrors = b.errors;
}

async function hangingTarget(s: Stage) {
  log(`badge push beside a hanging webhook target: ${config.badges} raises with it, ${config.badges} without`);
  const meter = cpuMeter(s.runtime.pid, s.javaPid);
  const h = await hangingTargetPhase({ wsUrl: s.runtime.wsUrl, http: s.http, runnerToken: s.runnerToken, humanToken: s.humanToken, count: config.badges, thinkMs: config.thinkMs, blocks: 5 });
  s.cpu.notify = meter();
  s.samples.badgeWithHangingTarget = h.samples.with;
  s.samples.badgeWithoutTarget = h.samples.without;
  s.results.notify = h.figures;
}

async function load(s: Stage) {
  log(`load: ${config.loadRunners} runners, ${config.loadElicitations} elicitations, ${config.humans} humans`);
  const meter = cpuMeter(s.runtime.pid, s.javaPid);
  const load = await loadPhase({
    wsUrl: s.runtime.wsUrl,
    http: s.http,
    humanToken: s.humanToken,
    runtimePid: s.runtime.pid,
    javaPid: s.javaPid,
    runners: config.loadRunners,
    elicitations: config.loadElicitations,
    humans: config.humans,
    timeoutSeconds: config.loadTimeoutSeconds,
    pingSeconds: config.pingSeconds,
  });
  s.cpu.load = meter();
  // Its runners' sockets have just closed: the next phase waits out their disconnects and schedules.
  const idleAfterSeconds = await waitForIdle([s.runtime.pid, ...(s.javaPid ? [s.javaPid] : [])], 300);
  log(`load: the runtime and DynamoDB Local idle ${idleAfterSeconds} s after the phase`);
  s.results.load = { ...load, idleAfterSeconds };
}

export async function runPhases(s: Stage) {
  const has = (phase: string) => config.phases.includes(phase);
  if (config.warmup > 0 && (has("roundtrip") || has("floor"))) {
    log(`warm-up: ${config.warmup} round trips`);
    await roundTripPhase({ wsUrl: s.runtime.wsUrl, http: s.http, runnerToken: s.runnerToken, humanToken: s.humanToken, count: config.warmup, session: "bench_warmup", thinkMs: 0 });
    await floorPhase(s.dynamoEndpoint, Math.min(500, config.warmup), "warmup");
  }
  if (has("floor")) await floors(s);
  if (has("roundtrip")) await roundTrips(s);
  if (has("badge")) await badges(s);
  if (has("floor") && has("roundtrip")) s.results.floorAfter = summarize((await floorPhase(s.dynamoEndpoint, Math.min(500, config.floorSamples), "after")).total);
  if (has("load")) await load(s);
  if (has("notify")) await hangingTarget(s);
}
