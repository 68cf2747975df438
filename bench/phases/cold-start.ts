/**
 * Cold starts: every function bundled as the stack bundles it (infra/bundling.ts: esbuild, ESM,
 * minified, a source map beside it, the AWS SDK inside), then for each a fresh Node process started
 * as the stack starts it by default imports the bundle and handles one event (coldstart/events.ts).
 * Beside the verdict and the park, a twin of each that holds only the AWS clients that function uses
 * (as the catalog says), built the same way, so the clients' own share of a cold start shows; and the
 * verdict once more as `tollgate:sourceMaps` starts it, so the price of mapped stack traces shows.
 */
import { execFile } from "node:child_process";
import { mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { build } from "esbuild";
import { functions, type FunctionName, type FunctionSpec } from "../../functions/catalog.js";
import { bundleSettings, nodeOptionsFor } from "../../infra/bundling.js";
import { root } from "../../local/lambda.js";
import { mintToken } from "../../local/tokens.js";
import { log, SECRET } from "../config.js";
import { coldEvent } from "../coldstart/events.js";
import { hundredths } from "../stats.js";

const run = promisify(execFile);

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

/** Bundles `entry` into `dir` with the stack's settings (infra/bundling.ts), with target node20 for this machine. */
export async function bundle(entry: string, dir: string): Promise<{ file: string; bytes: number }> {
  const file = join(dir, "index.mjs");
  await build({
    entryPoints: [entry],
    outfile: file,
    bundle: true,
    platform: "node",
    ...bundleSettings,
    mainFields: [...bundleSettings.mainFields],
    banner: { js: bundleSettings.banner },
    target: "node20",
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
  sourceMaps: boolean;
}

async function coldStart(file: string, event: unknown, env: NodeJS.ProcessEnv, nodeOptions: string[]): Promise<Start> {
  const { stdout } = await run(process.execPath, [...nodeOptions, join(root, "bench/coldstart/harness.mjs"), file, JSON.stringify(event)], { env, timeout: 30_000 });
  return JSON.parse(stdout.trim().split("\n").pop()!) as Start;
}

/** The row of a function's clients-only twin, and of the verdict started with source maps on. */
const twinOf = (name: FunctionName) => `${name}ClientsOnly`;
const withSourceMaps = (name: FunctionName) => `${name}WithSourceMaps`;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** One bundle to start: its row's name, its entry file, the event it handles and how Node is started. */
interface ColdEntry {
  name: string;
  entry: string;
  event: unknown;
  nodeOptions: string[];
}

/**
 * The median over the rounds of one bundle's cold start over another's in the same round. The two
 * start one right after the other, so the machine's pace, which moves from round to round by more
 * than the difference measured, falls on both sides of each round's ratio.
 */
export function pairedRatio(roundsMs: number[], baseRoundsMs: number[]): number {
  return hundredths(median(roundsMs.map((ms, r) => ms / baseRoundsMs[r])));
}

/** `env`: the functions' environment (table, endpoints, secret) pointing at a running DynamoDB Local. */
export async function coldStartPhase(work: string, env: NodeJS.ProcessEnv, repeats: number, only?: string[]) {
  const token = await mintToken(SECRET, { sub: "cold-human", tenant: "bench-cost", role: "human" });
  const asDeployed = nodeOptionsFor(false);
  const entries: ColdEntry[] = [];
  for (const [name, spec] of Object.entries(functions) as [FunctionName, FunctionSpec][]) {
    if (only && !only.includes(name)) continue;
    const fn = { name, entry: join(root, spec.entry), event: coldEvent(spec, token), nodeOptions: asDeployed };
    entries.push(fn);
    if (!(Object.values(goals) as FunctionName[]).includes(name)) continue;
    // A goal function's twin (and the verdict with source maps) start right after it in each round,
    // so that the machine's pace over a round falls on the two sides of a ratio alike.
    const dir = join(work, "clients-only", name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "entry.mjs"), clientsOnlyEntry(spec));
    entries.push({ name: twinOf(name), entry: join(dir, "entry.mjs"), event: {}, nodeOptions: asDeployed });
    if (name === goals.verdict) entries.push({ ...fn, name: withSourceMaps(name), nodeOptions: nodeOptionsFor(true) });
  }
  log(`cold start: bundling ${entries.length} functions, then ${repeats} fresh processes each`);
  const bundles = await Promise.all(entries.map(({ name, entry }) => bundle(entry, join(work, "bundles", name))));
  // Round by round, each function once a round: a slow stretch of the machine then falls on every
  // function alike instead of on whichever ran during it.
  const starts: Start[][] = entries.map(() => []);
  for (let r = 0; r < repeats; r++) for (const [i, { event, nodeOptions }] of entries.entries()) starts[i].push(await coldStart(bundles[i].file, event, env, nodeOptions));
  const rows: Record<string, { bundleKiB: number; initMs: number; firstEventMs: number; coldMs: number; roundsMs: number[]; outcome: string | number; sourceMaps: boolean }> = {};
  for (const [i, { name }] of entries.entries()) {
    const init = median(starts[i].map((s) => s.importMs));
    const first = median(starts[i].map((s) => s.firstEventMs));
    rows[name] = {
      bundleKiB: hundredths(bundles[i].bytes / 1024),
      initMs: hundredths(init),
      firstEventMs: hundredths(first),
      coldMs: hundredths(median(starts[i].map((s) => s.importMs + s.firstEventMs))),
      roundsMs: starts[i].map((s) => hundredths(s.importMs + s.firstEventMs)),
      outcome: starts[i][0].outcome,
      sourceMaps: starts[i][0].sourceMaps,
    };
  }
  const ratio = (name: string, base: string) => (rows[name] && rows[base] ? pairedRatio(rows[name].roundsMs, rows[base].roundsMs) : undefined);
  const vs = (name: FunctionName) => ratio(name, twinOf(name));
  return {
    functions: rows,
    repeats,
    clientsOnly: Object.fromEntries(Object.values(goals).map((name) => [twinOf(name), clientsOf(functions[name])])),
    verdictVsClientsOnly: vs(goals.verdict),
    parkVsClientsOnly: vs(goals.park),
    verdictWithSourceMapsVsDefault: ratio(withSourceMaps(goals.verdict), goals.verdict),
    note: `median of fresh Node processes, each importing one bundle (initMs) and handling one event (firstEventMs, its first DynamoDB call included); coldMs is their sum, roundsMs that sum in each round; each ratio is the median over the rounds of the two bundles' cold starts in the same round; a function's twin (<name>ClientsOnly) builds only the clients in clientsOnly and makes one GetItem. The processes run round by round, each bundle once a round, a goal function's twin (and the verdict with source maps) right after it. The bundles are built as the stack builds them (a source map beside each), with target node20 for this machine's Node, and started as the stack starts them by default (Node options: ${asDeployed.join(" ") || "none"}); ${withSourceMaps(goals.verdict)} is the verdict started as tollgate:sourceMaps starts it (${nodeOptionsFor(true).join(" ")})`,
  };
}
