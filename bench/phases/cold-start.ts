/**
 * Cold starts: every function bundled as the stack bundles it (esbuild, ESM, minified, the AWS SDK
 * inside, infra/tollgate-function.ts), then for each a fresh Node process imports the bundle and
 * handles one event (coldstart/events.ts). Beside the verdict and the park, a twin of each that holds
 * only the AWS clients that function uses (as the catalog says), built the same way, so the clients'
 * own share of a cold start shows.
 */
import { execFile } from "node:child_process";
import { mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { build } from "esbuild";
import { functions, type FunctionName, type FunctionSpec } from "../../functions/catalog.js";
import { root } from "../../local/lambda.js";
import { mintToken } from "../../local/tokens.js";
import { log, SECRET } from "../config.js";
import { coldEvent } from "../coldstart/events.js";
import { hundredths } from "../stats.js";

const run = promisify(execFile);
const banner = "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

/** The functions with a cold start goal, against a bundle of only the AWS clients each uses. */
const goals = { verdict: "httpPostEvent", park: "wsElicit" } as const satisfies Record<string, FunctionName>;

/** The AWS SDK clients a function's code uses, read from what the catalog lets it call. */
function clientsOf(spec: FunctionSpec): string[] {
  const uses = {
    dynamodb: spec.table.length > 0,
    connections: Boolean(spec.connections || spec.closesConnections),
    scheduler: Boolean(spec.scheduler?.length),
    secrets: Boolean(spec.verifiesTokens || spec.signsLinks),
  };
  return Object.entries(uses)
    .filter(([, used]) => used)
    .map(([client]) => client);
}

/** How a twin imports and builds each client besides DynamoDB, which every twin builds for its GetItem. */
const clientCode: Record<string, string[]> = {
  connections: [
    `import { ApiGatewayManagementApiClient } from "@aws-sdk/client-apigatewaymanagementapi";`,
    `built.push(new ApiGatewayManagementApiClient({ endpoint: process.env.TOLLGATE_CONNECTIONS_URL }));`,
  ],
  scheduler: [`import { SchedulerClient } from "@aws-sdk/client-scheduler";`, `built.push(new SchedulerClient({}));`],
  secrets: [`import { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";`, `built.push(new SecretsManagerClient({}));`],
};

/** A handler that builds those clients and nothing else, and makes one GetItem on its event, as the function's first call. */
function clientsOnlyEntry(spec: FunctionSpec): string {
  const lines = [
    `import { DynamoDBClient } from "@aws-sdk/client-dynamodb";`,
    `import { DynamoDBDocumentClient, GetCommand } from "@aws-sdk/lib-dynamodb";`,
    `const db = DynamoDBDocumentClient.from(new DynamoDBClient({}));`,
    `const built = [db];`,
    ...clientsOf(spec).flatMap((client) => clientCode[client] ?? []),
    `export const handler = async () => ({ statusCode: (await db.send(new GetCommand({ TableName: process.env.TOLLGATE_TABLE, Key: { pk: "cold", sk: "cold" } }))).Item ? 200 : 404, clients: built.length });`,
  ];
  return `${lines.join("\n")}\n`;
}

/** Bundles `entry` into `dir` as the stack does (infra/tollgate-function.ts), with target node20 for this machine. */
export async function bundle(entry: string, dir: string): Promise<{ file: string; bytes: number }> {
  const file = join(dir, "index.mjs");
  await build({
    entryPoints: [entry],
    outfile: file,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    minify: true,
    mainFields: ["module", "main"],
    banner: { js: banner },
    logLevel: "silent",
    absWorkingDir: root,
    nodePaths: [join(root, "node_modules")],
  });
  return { file, bytes: statSync(file).size };
}

interface Start {
  importMs: number;
  firstEventMs: number;
  processStartMs: number;
  outcome: string | number;
}

async function coldStart(file: string, event: unknown, env: NodeJS.ProcessEnv): Promise<Start> {
  const { stdout } = await run(process.execPath, [join(root, "bench/coldstart/harness.mjs"), file, JSON.stringify(event)], { env, timeout: 30_000 });
  return JSON.parse(stdout.trim().split("\n").pop()!) as Start;
}

/** The row of a function's clients-only twin. */
const twinOf = (name: FunctionName) => `${name}ClientsOnly`;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** `env`: the functions' environment (table, endpoints, secret) pointing at a running DynamoDB Local. */
export async function coldStartPhase(work: string, env: NodeJS.ProcessEnv, repeats: number, only?: string[]) {
  const token = await mintToken(SECRET, { sub: "cold-human", tenant: "bench-cost", role: "human" });
  const entries: [string, string, unknown][] = Object.entries(functions)
    .filter(([name]) => !only || only.includes(name))
    .map(([name, spec]) => [name, join(root, spec.entry), coldEvent(spec, token)]);
  for (const name of Object.values(goals).filter((n) => !only || only.includes(n))) {
    const dir = join(work, "clients-only", name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "entry.mjs"), clientsOnlyEntry(functions[name]));
    entries.push([twinOf(name), join(dir, "entry.mjs"), {}]);
  }
  log(`cold start: bundling ${entries.length} functions, then ${repeats} fresh processes each`);
  const bundles = await Promise.all(entries.map(([name, entry]) => bundle(entry, join(work, "bundles", name))));
  // Round by round, each function once a round: a slow stretch of the machine then falls on every
  // function alike instead of on whichever ran during it.
  const starts: Start[][] = entries.map(() => []);
  for (let r = 0; r < repeats; r++) for (const [i, [, , event]] of entries.entries()) starts[i].push(await coldStart(bundles[i].file, event, env));
  const rows: Record<string, { bundleKiB: number; initMs: number; firstEventMs: number; coldMs: number; outcome: string | number }> = {};
  for (const [i, [name]] of entries.entries()) {
    const init = median(starts[i].map((s) => s.importMs));
    const first = median(starts[i].map((s) => s.firstEventMs));
    rows[name] = {
      bundleKiB: hundredths(bundles[i].bytes / 1024),
      initMs: hundredths(init),
      firstEventMs: hundredths(first),
      coldMs: hundredths(median(starts[i].map((s) => s.importMs + s.firstEventMs))),
      outcome: starts[i][0].outcome,
    };
  }
  const vs = (name: FunctionName) => (rows[name] ? hundredths(rows[name].coldMs / rows[twinOf(name)].coldMs) : undefined);
  return {
    functions: rows,
    repeats,
    clientsOnly: Object.fromEntries(Object.values(goals).map((name) => [twinOf(name), clientsOf(functions[name])])),
    verdictVsClientsOnly: vs(goals.verdict),
    parkVsClientsOnly: vs(goals.park),
    note: "median of fresh Node processes, each importing one bundle (initMs) and handling one event (firstEventMs, its first DynamoDB call included); coldMs is their sum; a function's twin (<name>ClientsOnly) builds only the clients in clientsOnly and makes one GetItem. The processes run round by round, each bundle once a round. The bundles are built as the stack builds them, with target node20 for this machine's Node",
  };
}
