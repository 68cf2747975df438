/**
 * The bench's knobs: every one an environment variable of `npm run bench` (docs/performance.md lists
 * them with the values used), plus the runtime's own knobs passed through to its process.
 */
import { join } from "node:path";
import { defaults } from "../infra/config.js";
import { root } from "../local/lambda.js";

const int = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);

export const config = {
  /** Round trips measured one after another (after the warm-up). */
  verdicts: int("BENCH_VERDICTS", 2000),
  warmup: int("BENCH_WARMUP", 300),
  /**
   * Pause after a park before the human answers, and after a verdict before the runner raises again
   * (round trip and badge phases). A human answers seconds later, so the raise's stream reactions
   * (inbox events, deadline schedule) are done by then; the load phase has no pause at all.
   */
  thinkMs: int("BENCH_THINK_MS", 25),
  floorSamples: int("BENCH_FLOOR_SAMPLES", 2000),
  badges: int("BENCH_BADGES", 500),
  loadRunners: int("BENCH_LOAD_RUNNERS", 1000),
  loadElicitations: int("BENCH_LOAD_ELICITATIONS", 10_000),
  humans: int("BENCH_HUMANS", 20),
  /** The load phase's sockets ping this often: a phase of 10,000 runners lasts longer than the gateway's 10 idle minutes. */
  pingSeconds: int("BENCH_PING_SECONDS", 240),
  /** Hard bound on the load phase. */
  loadTimeoutSeconds: int("BENCH_LOAD_TIMEOUT_SECONDS", 360),
  /** `memory` (DynamoDB Local -inMemory) or `disk` (a -dbPath in a temp dir, as `npm start` does with TOLLGATE_DATA_DIR). */
  dynamodb: (process.env.BENCH_DYNAMODB ?? "memory") as "memory" | "disk",
  phases: (process.env.BENCH_PHASES ?? "floor,roundtrip,badge,load,notify,cost,coldstart").split(","),
  /** Elicitations the cost phase meters, one at a time. */
  costElicitations: int("BENCH_COST_ELICITATIONS", 200),
  /** Fresh processes per function in the cold start phase, run round by round (the median is reported). */
  coldStartRepeats: int("BENCH_COLD_START_REPEATS", 9),
  /** Functions whose cold start is measured (comma-separated catalog names); all when unset. */
  coldStartFunctions: process.env.BENCH_COLD_START_FUNCTIONS?.split(","),
  /** Minutes a runner's socket stays open while its human decides: the one input of the cost model not measured here. */
  runnerWaitMinutes: int("BENCH_RUNNER_WAIT_MINUTES", 2),
  /**
   * The share of a provisioned table's capacity in use, in percent, at which the cost phase also prices
   * its counted units (auto scaling's target by default): the other input of the cost model not measured here.
   */
  provisionedUtilization: int("BENCH_PROVISIONED_UTILIZATION", defaults.capacityTargetUtilization),
  /** Write a V8 CPU profile of the runtime child (node --cpu-prof) into this directory. */
  profileDir: process.env.BENCH_PROFILE_DIR,
  out: process.env.BENCH_OUT ?? join(root, "bench/results/latest.json"),
  /** The run to compare with (run-to-run spread of the headline figures): the last one written to `out` unless named. */
  previous: process.env.BENCH_PREVIOUS ?? process.env.BENCH_OUT ?? join(root, "bench/results/latest.json"),
  /** Wait up to this long for the machine to go quiet (other processes under 0.3 cores) before starting. */
  quietWaitSeconds: int("BENCH_QUIET_WAIT_SECONDS", 60),
  /** Passed through to the runtime; its own defaults apply when unset. */
  runtimeEnv: {
    // The per-token limits stay on (their counter write is part of every raise and verdict) but far
    // above what one bench token sends: 2,000 verdicts in a minute from one human is the point here.
    TOLLGATE_RATE_LIMIT_RAISES_PER_MINUTE: "1000000",
    TOLLGATE_RATE_LIMIT_VERDICTS_PER_MINUTE: "1000000",
    ...Object.fromEntries(
      [
        "TOLLGATE_STREAM_POLL_MS",
        "TOLLGATE_STREAM_BATCH_SIZE",
        "TOLLGATE_RECONNECT_GRACE_SECONDS",
        "TOLLGATE_ESCALATION_GRACE_SECONDS",
        "TOLLGATE_RATE_LIMIT_RAISES_PER_MINUTE",
        "TOLLGATE_RATE_LIMIT_VERDICTS_PER_MINUTE",
        "TOLLGATE_SUBSCRIBER_SHARDS",
      ].flatMap((k) => (process.env[k] ? [[k, process.env[k]!]] : [])),
    ),
  } as Record<string, string>,
};

export type Config = typeof config;

export const SECRET = "tollgate-bench-secret";
export const TENANT = "bench";

export function log(line: string) {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
}
