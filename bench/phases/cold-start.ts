/**
 * Cold starts: every function bundled as the stack bundles it (esbuild, ESM, minified, the AWS SDK
 * inside, infra/tollgate-function.ts), then for each a fresh Node process imports the bundle and
 * handles one event (coldstart/events.ts). Beside them, bundles that hold only the AWS clients the
 * verdict and park functions use, built the same way, so their own share of a cold start shows.
 */
import { execFile } from "node:child_process";
import { mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { build } from "esbuild";
import { functions, type FunctionName } from "../../functions/catalog.js";
import { root } from "../../local/lambda.js";
import { mintToken } from "../../local/tokens.js";
import { log, SECRET } from "../config.js";
import { coldEvent } from "../coldstart/events.js";
import { hundredths } from "../stats.js";

const run = promisify(execFile);
const banner = "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

/** A handler holding only DynamoDB (with the document client) and `@connections`, doing one GetItem on its event. */
const clientsOnly = `import { ApiGatewayManagementApiClient } from "@aws-sdk/client-apigatewaymanagementapi";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient, GetCommand } from "@aws-sdk/lib-dynamodb";
const db = DynamoDBDocumentClient.from(new DynamoDBClient({}));
const push = new ApiGatewayManagementApiClient({ endpoint: process.env.TOLLGATE_CONNECTIONS_URL });
export const handler = async () => ({ statusCode: (await db.send(new GetCommand({ TableName: process.env.TOLLGATE_TABLE, Key: { pk: "cold", sk: "cold" } }))).Item ? 200 : 404, push: typeof push.send });
`;

async function bundle(entry: string, dir: string): Promise<{ file: string; bytes: number }> {
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

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** `env`: the functions' environment (table, endpoints, secret) pointing at a running DynamoDB Local. */
export async function coldStartPhase(work: string, env: NodeJS.ProcessEnv, repeats: number, only?: string[]) {
  const token = await mintToken(SECRET, { sub: "cold-human", tenant: "bench-cost", role: "human" });
  const entries: [string, string, unknown][] = Object.entries(functions)
    .filter(([name]) => !only || only.includes(name))
    .map(([name, spec]) => [name, join(root, spec.entry), coldEvent(spec, token)]);
  mkdirSync(join(work, "clients-only"), { recursive: true });
  writeFileSync(join(work, "clients-only", "entry.mjs"), clientsOnly);
  entries.push(["clientsOnly", join(work, "clients-only", "entry.mjs"), {}]);
  log(`cold start: bundling ${entries.length} functions, then ${repeats} fresh processes each`);
  const bundles = await Promise.all(entries.map(([name, entry]) => bundle(entry, join(work, "bundles", name))));
  const rows: Record<string, { bundleKiB: number; initMs: number; firstEventMs: number; coldMs: number; outcome: string | number }> = {};
  for (const [i, [name, , event]] of entries.entries()) {
    const starts: Start[] = [];
    for (let r = 0; r < repeats; r++) starts.push(await coldStart(bundles[i].file, event, env));
    const init = median(starts.map((s) => s.importMs));
    const first = median(starts.map((s) => s.firstEventMs));
    rows[name] = {
      bundleKiB: hundredths(bundles[i].bytes / 1024),
      initMs: hundredths(init),
      firstEventMs: hundredths(first),
      coldMs: hundredths(median(starts.map((s) => s.importMs + s.firstEventMs))),
      outcome: starts[0].outcome,
    };
  }
  const vs = (name: FunctionName) => (rows[name] ? hundredths(rows[name].coldMs / rows.clientsOnly.coldMs) : undefined);
  return {
    functions: rows,
    repeats,
    verdictVsClientsOnly: vs("httpPostEvent"),
    parkVsClientsOnly: vs("wsElicit"),
    note: "median of fresh Node processes, each importing one bundle (initMs) and handling one event (firstEventMs, its first DynamoDB call included); coldMs is their sum. The bundles are built as the stack builds them, with target node20 for this machine's Node",
  };
}
