/** `npm start`: Tollgate on this machine. See README.md and docs/protocol.md "Local runtime". */
import { env } from "../functions/shared/env.js";
import { MissingJavaError } from "./dynamodb.js";
import { attributeInvocations } from "./lambda.js";
import { startRuntime } from "./runtime.js";
import { DEV_SECRET, mintToken } from "./tokens.js";

/** A numeric setting from the environment (seconds, milliseconds or a count, as its name says), or undefined. */
function numberFrom(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a non-negative number, not "${raw}"`);
  return value;
}

async function main() {
  attributeInvocations(false); // nobody here asks which function made an AWS call
  const configured = Boolean(process.env[env.jwtSecret]);
  const secret = process.env[env.jwtSecret] || DEV_SECRET;
  const runtime = await startRuntime({
    port: numberFrom("TOLLGATE_PORT") ?? 4000,
    dataDir: process.env.TOLLGATE_DATA_DIR || ".tollgate",
    jwtSecret: secret,
    settings: process.env, // graces, rate limits, retention: as a deployed function reads them
    streamPollMs: numberFrom("TOLLGATE_STREAM_POLL_MS"),
    streamBatchSize: numberFrom("TOLLGATE_STREAM_BATCH_SIZE"),
    schedulerJitterSeconds: numberFrom("TOLLGATE_SCHEDULER_JITTER_SECONDS"),
    // An already running DynamoDB Local (the benchmark shares one with its own floor measurement).
    dynamoEndpoint: process.env.TOLLGATE_DYNAMODB_ENDPOINT || undefined,
  });
  if (!configured) {
    console.log(`No ${env.jwtSecret} set: using the development secret "${DEV_SECRET}". Tokens for tenant "dev" (30 days):`);
    for (const role of ["runner", "human", "service"] as const) {
      console.log(`  ${role.padEnd(7)} ${await mintToken(secret, { sub: `dev-${role}`, tenant: "dev", role })}`);
    }
  }
  console.log(`HTTP API   ${runtime.httpUrl}/v1`);
  console.log(`WebSocket  ${runtime.wsUrl}`);
  console.log(`Inbox      ${runtime.httpUrl}/`);
  console.log("ready");
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await runtime.stop();
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((error) => {
  console.error(error instanceof MissingJavaError ? error.message : `Tollgate could not start: ${(error as Error).message}`);
  process.exit(1);
});
