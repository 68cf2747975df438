/**
 * Tollgate on one machine: DynamoDB Local, the tables from the shared definition, and the
 * stand-ins for API Gateway, `@connections`, Scheduler and the stream event source, all calling
 * the same handlers that run in Lambda. Only endpoints differ (the SDK's AWS_ENDPOINT_URL_* variables).
 */
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBStreamsClient } from "@aws-sdk/client-dynamodb-streams";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { join } from "node:path";
import { mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { timerFunctions, type TimerName } from "../functions/catalog.js";
import { env } from "../functions/shared/env.js";
import { startDynamoLocal, type DynamoLocal } from "./dynamodb.js";
import { createGateway } from "./gateway.js";
import { functionArn, onInvoked } from "./lambda.js";
import { createLocalScheduler } from "./scheduler.js";
import { createStreamPoller } from "./stream-poller.js";
import { ensureTables, localStateTable } from "./tables.js";

export interface RuntimeOptions {
  port?: number;
  /** Keeps the database between runs; in memory when absent and no endpoint is given. */
  dataDir?: string;
  /** Use an already running DynamoDB Local instead of starting one (tests share one). */
  dynamoEndpoint?: string;
  table?: string;
  jwtSecret: string;
  reconnectGraceSeconds?: number;
  escalationGraceSeconds?: number;
  noticeRetryMs?: number;
  /** Per-token limits (TOLLGATE_RATE_LIMIT_*_PER_MINUTE; 0 = none). Absent: the process environment or the defaults. */
  rateLimits?: { raisesPerMinute?: number; verdictsPerMinute?: number };
  /** OpenID Connect issuers whose tokens are accepted beside the HS256 ones (TOLLGATE_OIDC_ISSUERS). */
  oidcIssuers?: unknown[];
  streamPollMs?: number;
  streamBatchSize?: number;
  /** Deliver every stream batch and fire every schedule twice, as AWS may (at least once). */
  redeliver?: boolean;
  log?: (line: string) => void;
}

export interface Runtime {
  port: number;
  httpUrl: string;
  wsUrl: string;
  dynamoEndpoint: string;
  table: string;
  stop(): Promise<void>;
}

const credentials = { accessKeyId: "local", secretAccessKey: "local" };

/** The environment the functions read, as CDK sets it in the cloud. */
function functionEnvironment(o: RuntimeOptions, port: number, dynamoEndpoint: string, table: string): Record<string, string> {
  const base = `http://127.0.0.1:${port}`;
  const timers = Object.fromEntries(Object.entries(timerFunctions).map(([timer, fn]) => [env.timerArn[timer as TimerName], functionArn(fn)]));
  return {
    AWS_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    AWS_ENDPOINT_URL_DYNAMODB: dynamoEndpoint,
    AWS_ENDPOINT_URL_SCHEDULER: base,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
    [env.table]: table,
    [env.connectionsUrl]: base,
    [env.schedulerGroup]: "tollgate",
    [env.schedulerRoleArn]: "arn:aws:iam::000000000000:role/tollgate-scheduler",
    [env.jwtSecret]: o.jwtSecret,
    [env.reconnectGraceSeconds]: String(o.reconnectGraceSeconds ?? 300),
    [env.escalationGraceSeconds]: String(o.escalationGraceSeconds ?? 120),
    [env.noticeRetryDelayMs]: String(o.noticeRetryMs ?? 500),
    ...(o.rateLimits?.raisesPerMinute !== undefined ? { [env.rateLimitRaisesPerMinute]: String(o.rateLimits.raisesPerMinute) } : {}),
    ...(o.rateLimits?.verdictsPerMinute !== undefined ? { [env.rateLimitVerdictsPerMinute]: String(o.rateLimits.verdictsPerMinute) } : {}),
    ...(o.oidcIssuers ? { [env.oidcIssuers]: JSON.stringify(o.oidcIssuers) } : {}),
    ...timers,
  };
}

export async function startRuntime(o: RuntimeOptions): Promise<Runtime> {
  const log = o.log ?? ((line: string) => console.error(line));
  const table = o.table ?? "tollgate";
  let dynamo: DynamoLocal | undefined;
  if (!o.dynamoEndpoint) dynamo = await startDynamoLocal({ dataDir: o.dataDir ? join(o.dataDir, "dynamodb") : undefined });
  const dynamoEndpoint = o.dynamoEndpoint ?? dynamo!.endpoint;
  try {
    const client = new DynamoDBClient({ endpoint: dynamoEndpoint, region: "us-east-1", credentials });
    const db = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
    const streamArn = await ensureTables(client, table);
    const stateTable = localStateTable(table);
    const copies = o.redeliver ? 2 : 1;
    const scheduler = createLocalScheduler(db, stateTable, log, copies);
    const gateway = createGateway({ scheduler, log });
    const port = await gateway.listen(o.port ?? 4000);
    Object.assign(process.env, functionEnvironment(o, port, dynamoEndpoint, table));
    const failureDir = o.dataDir ?? tmpdir();
    if (o.dataDir) mkdirSync(o.dataDir, { recursive: true });
    const poller = createStreamPoller({
      streams: new DynamoDBStreamsClient({ endpoint: dynamoEndpoint, region: "us-east-1", credentials }),
      db,
      stateTable,
      streamArn,
      pollMs: o.streamPollMs ?? 50,
      batchSize: o.streamBatchSize ?? 100,
      maxRetries: 5,
      copies,
      failureLog: join(failureDir, "stream-failures.jsonl"),
      log,
    });
    await scheduler.start();
    await poller.start();
    // A change is read as soon as the handler that made it returns, as the cloud's poller (always reading) would.
    const unhook = onInvoked((name) => name !== "streams" && poller.wake());
    return {
      port,
      httpUrl: `http://127.0.0.1:${port}`,
      wsUrl: `ws://127.0.0.1:${port}/ws`,
      dynamoEndpoint,
      table,
      async stop() {
        // The stream and the schedules stop first (they resume from DynamoDB Local next time), then the clients go.
        scheduler.stop();
        unhook();
        await poller.stop();
        await gateway.close();
        client.destroy();
        await dynamo?.stop();
      },
    };
  } catch (error) {
    await dynamo?.stop();
    throw error;
  }
}
