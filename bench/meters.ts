/**
 * What the bench reads from /proc while it runs: CPU seconds of the runtime, of DynamoDB Local, of
 * itself and of everything else on the machine (it may be shared), and resident memory.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { root } from "../local/lambda.js";
import { sleep } from "./clients.js";
import { log } from "./config.js";
import { memoryOf } from "./runtime.js";
import { hundredths } from "./stats.js";

export function cpuSecondsOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks of 10 ms
  } catch {
    return NaN;
  }
}

/** Busy CPU seconds of the whole machine (all cores), from /proc/stat. */
function machineCpuSeconds(): number {
  const cpu = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
  const [user, nice, system, , , irq, softirq, steal] = cpu;
  return (user + nice + system + irq + softirq + steal) / 100;
}

export type CpuUse = ReturnType<ReturnType<typeof cpuMeter>>;

/** CPU seconds used during a phase: by the runtime, DynamoDB Local, the bench itself, and everything else on the machine. */
export function cpuMeter(runtimePid: number, javaPid: number | undefined) {
  const read = () => ({
    runtime: cpuSecondsOf(runtimePid),
    java: javaPid ? cpuSecondsOf(javaPid) : 0,
    bench: cpuSecondsOf(process.pid),
    machine: machineCpuSeconds(),
    at: Date.now(),
  });
  const start = read();
  return () => {
    const end = read();
    const d = (k: keyof typeof start) => end[k] - start[k];
    const wall = d("at") / 1000;
    const others = Math.max(0, d("machine") - d("runtime") - d("java") - d("bench"));
    return {
      wallSeconds: hundredths(wall),
      runtime: hundredths(d("runtime")),
      dynamodbLocal: hundredths(d("java")),
      bench: hundredths(d("bench")),
      otherProcesses: hundredths(others),
      otherProcessesCores: hundredths(others / wall),
    };
  };
}

/** Peak resident memory of the runtime (node) and of DynamoDB Local (java), sampled while it runs. */
export function memoryWatch(runtimePid: number, javaPid: number | undefined) {
  const peak = { runtime: 0, java: 0 };
  const sample = () => {
    peak.runtime = Math.max(peak.runtime, memoryOf(runtimePid)?.rssMiB ?? 0);
    if (javaPid) peak.java = Math.max(peak.java, memoryOf(javaPid)?.rssMiB ?? 0);
  };
  const timer = setInterval(sample, 250);
  timer.unref();
  return {
    peak,
    stop() {
      clearInterval(timer);
      sample();
    },
  };
}

/** Cores busy with other processes over `ms` (this machine may be shared). */
async function othersBusy(ms: number): Promise<number> {
  const m0 = machineCpuSeconds();
  const b0 = cpuSecondsOf(process.pid);
  await sleep(ms);
  return Math.max(0, machineCpuSeconds() - m0 - (cpuSecondsOf(process.pid) - b0)) / (ms / 1000);
}

/** Waits (at most `seconds`) until other processes use under 0.3 cores; returns what they used last. */
export async function waitForQuiet(seconds: number): Promise<number> {
  const until = Date.now() + seconds * 1000;
  let busy = await othersBusy(2_000);
  while (busy > 0.3 && Date.now() < until) {
    log(`other processes keep ${busy.toFixed(2)} cores busy: waiting for a quieter machine (at most ${seconds} s)`);
    busy = await othersBusy(5_000);
  }
  return hundredths(busy);
}

/**
 * Waits (at most `seconds`) until the runtime and DynamoDB Local are idle (under 0.05 cores each over
 * a second): the reactions a phase left behind (the stream's backlog, a wave of disconnects and their
 * schedules) would otherwise slow the next phase down. Returns the seconds it waited.
 */
export async function waitForIdle(pids: number[], seconds: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    const before = pids.map(cpuSecondsOf);
    await sleep(1_000);
    const busiest = Math.max(...pids.map((pid, i) => cpuSecondsOf(pid) - before[i]));
    if (!(busiest >= 0.05) || Date.now() - started >= seconds * 1000) return hundredths((Date.now() - started) / 1000);
  }
}

/** The output of a command, or "" where it fails (no java, not a checkout). */
function outputOf(command: string, cwd?: string): string {
  try {
    return execFileSync("sh", ["-c", command], { cwd, encoding: "utf8" }).trim();
  } catch {
    return "";
  }
}

export function machine() {
  return {
    cpu: cpus()[0]?.model ?? "?",
    cores: cpus().length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    java: outputOf("java -version 2>&1 | head -1"),
    commit: outputOf("git rev-parse --short HEAD", root),
  };
}
