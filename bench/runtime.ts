/**
 * The runtime under test as a separate process (`node --import tsx local/main.ts`), so its memory
 * can be read from /proc, and DynamoDB Local started here so the floor is measured against the
 * very same instance the runtime uses.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { root } from "../local/lambda.js";

export interface ChildRuntime {
  pid: number;
  port: number;
  httpUrl: string;
  wsUrl: string;
  logFile: string;
  stop(): Promise<void>;
}

/** Resident memory of a process in MiB: `VmHWM` is the peak over its life, `VmRSS` the current one. */
export function memoryOf(pid: number): { rssMiB: number; peakMiB: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
    return { rssMiB: kib("VmRSS") / 1024, peakMiB: kib("VmHWM") / 1024 };
  } catch {
    return undefined;
  }
}

/** Child processes of `pid` (Linux: /proc/<pid>/task/<tid>/children). */
export function childrenOf(pid: number): number[] {
  const tasks = `/proc/${pid}/task`;
  if (!existsSync(tasks)) return [];
  return readdirSync(tasks).flatMap((tid) => {
    try {
      return readFileSync(join(tasks, tid, "children"), "utf8")
        .trim()
        .split(/\s+/)
        .filter(Boolean)
        .map(Number);
    } catch {
      return [];
    }
  });
}

export function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ").trim();
  } catch {
    return "";
  }
}

/** The java process of DynamoDB Local among this process's descendants. */
export function findDynamoJava(from = process.pid, depth = 3): number | undefined {
  for (const child of childrenOf(from)) {
    if (/java/.test(commandOf(child)) && /DynamoDBLocal/.test(commandOf(child))) return child;
    if (depth > 0) {
      const found = findDynamoJava(child, depth - 1);
      if (found) return found;
    }
  }
  return undefined;
}

export interface ChildOptions {
  port: number;
  dataDir: string;
  jwtSecret: string;
  dynamoEndpoint: string;
  env: Record<string, string>;
  /** Extra node flags, e.g. `--cpu-prof`. */
  nodeFlags: string[];
  readyTimeoutMs: number;
}

export function startChildRuntime(o: ChildOptions): Promise<ChildRuntime> {
  const logFile = join(o.dataDir, "runtime.log");
  const log = createWriteStream(logFile);
  const child: ChildProcess = spawn(process.execPath, [...o.nodeFlags, "--import", "tsx", "local/main.ts"], {
    cwd: root,
    env: {
      ...process.env,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
      TOLLGATE_PORT: String(o.port),
      TOLLGATE_DATA_DIR: o.dataDir,
      TOLLGATE_JWT_SECRET: o.jwtSecret,
      TOLLGATE_DYNAMODB_ENDPOINT: o.dynamoEndpoint,
      ...o.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const kill = () => child.kill("SIGKILL");
  process.once("exit", kill);
  child.stderr!.pipe(log);
  return new Promise((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => {
      kill();
      reject(new Error(`the runtime did not print "ready" within ${o.readyTimeoutMs} ms; see ${logFile}`));
    }, o.readyTimeoutMs);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the runtime exited with code ${code} before it was ready; see ${logFile}`));
    });
    child.stdout!.on("data", (chunk: Buffer) => {
      log.write(chunk);
      if (seen.includes("\nready\n")) return;
      seen += chunk.toString();
      if (!`\n${seen}`.includes("\nready\n")) return;
      clearTimeout(timer);
      resolve({
        pid: child.pid!,
        port: o.port,
        httpUrl: `http://127.0.0.1:${o.port}`,
        wsUrl: `ws://127.0.0.1:${o.port}/ws`,
        logFile,
        stop: () =>
          new Promise<void>((done) => {
            process.removeListener("exit", kill);
            if (child.exitCode !== null) return done();
            const hard = setTimeout(kill, 15_000);
            child.once("exit", () => {
              clearTimeout(hard);
              log.end(() => done());
            });
            child.kill("SIGTERM");
          }),
      });
    });
  });
}
