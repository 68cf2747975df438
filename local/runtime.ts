/**
 * Tollgate on one machine: DynamoDB Local, the tables from the shared definition, and the
 * stand-ins for API Gateway, `@connections`, Scheduler and the stream event source, all calling
 * the same handlers that run in Lambda. The runtime builds the handlers' services itself (clients
 * on its own endpoints, its configuration, its clock) and passes them with each invocation, so it
 * writes no environment variable and two runtimes can share a process.
 */
import { ApiGatewayManagementApiClient } from "@aws-sdk/client-apigatewaymanagementapi";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBStreamsClient } from "@aws-sdk/client-dynamodb-streams";
import { SchedulerClient } from "@aws-sdk/client-scheduler";
import { join } from "node:path";
import { mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { streamItemKinds, timerFunctions, type TimerName } from "../functions/catalog.js";
import { buildServices, documentClient, type Clients, type Services } from "../functions/lambda/services.js";
import { readConfig, type Config } from "../functions/shared/config.js";
import { env } from "../functions/shared/env.js";
import { systemClock, type Clock } from "./clock.js";
import { startDynamoLocal, type DynamoLocal } from "./dynamodb.js";
import { createGateway } from "./gateway.js";
import { functionArn, invoker, type Invoke } from "./lambda.js";
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
  /** How long resolved elicitations are kept (TOLLGATE_RESOLVED_RETENTION_SECONDS). Absent: `settings` or 90 days. */
  retentionSeconds?: number;
  /** Per-token limits (TOLLGATE_RATE_LIMIT_*_PER_MINUTE; 0 = none). Absent: `settings` or the defaults. */
  rateLimits?: { raisesPerMinute?: number; verdictsPerMinute?: number };
  /** OpenID Connect issuers whose tokens are accepted beside the HS256 ones (TOLLGATE_OIDC_ISSUERS). */
  oidcIssuers?: unknown[];
  /** Pauses before each retry of a notification delivery (TOLLGATE_NOTIFY_RETRY_MS); absent: the defaults (about a day). */
  notifyRetryMs?: number[];
  notifyTimeoutMs?: number;
  /** How long after a recorded attempt the next one goes unrecorded, unless it starts or ends a run of failures (TOLLGATE_NOTIFY_SUCCESS_RECORD_MS); absent: 1 s. */
  notifySuccessRecordMs?: number;
  /** How long the runtime keeps the notification targets it read before reading them again (TOLLGATE_NOTIFY_TARGETS_KEPT_MS); absent: 1 s. */
  notifyTargetsKeptMs?: number;
  streamPollMs?: number;
  streamBatchSize?: number;
  /** Deliver every stream batch and fire every schedule twice, as AWS may (at least once). */
  redeliver?: boolean;
  /** Fire each schedule up to this many seconds late (uniformly), as the cloud's one-minute precision may. */
  schedulerJitterSeconds?: number;
  /** What every rule, timer and limit reads; tests pass a stepped clock and move it. */
  clock?: Clock;
  log?: (line: string) => void;
  /** Function settings by their environment names, read as Lambda reads its environment (`npm start` passes its own); the options above win. */
  settings?: Record<string, string | undefined>;
}

export interface Runtime {
  port: number;
  httpUrl: string;
  wsUrl: string;
  dynamoEndpoint: string;
  table: string;
  clock: Clock;
  /** The functions' configuration, as their environment would give it in the cloud. */
  config: Config;
  /** The SDK clients the functions use, on this runtime's endpoints. */
  clients: Clients;
  /** What each invocation gets on its context: a test calling a handler directly passes `{ services }`. */
  services: Services;
  /** Invoke a function as its trigger would, with this runtime's services. */
  invoke: Invoke;
  /** The names of the schedules still to fire. */
  pendingSchedules(): string[];
  /** Hold the replies of one WebSocket route until the returned function is called. */
  holdReplies(routeKey: string): () => void;
  stop(): Promise<void>;
}

const credentials = { accessKeyId: "local", secretAccessKey: "local" };

/** The configuration the functions get, as CDK sets it in their environment in the cloud. */
function functionConfig(o: RuntimeOptions, base: string, table: string) {
  const timers = Object.fromEntries(Object.entries(timerFunctions).map(([timer, fn]) => [env.timerArn[timer as TimerName], functionArn(fn)]));
  return readConfig({
    // The inbox this runtime serves: approval links open its standalone page.
    [env.approvalPageUrl]: `${base}/approval.html`,
    ...o.settings,
    [env.table]: table,
    [env.connectionsUrl]: base,
    [env.schedulerGroup]: "tollgate",
    [env.schedulerRoleArn]: "arn:aws:iam::000000000000:role/tollgate-scheduler",
    ...(o.reconnectGraceSeconds !== undefined ? { [env.reconnectGraceSeconds]: String(o.reconnectGraceSeconds) } : {}),
    ...(o.escalationGraceSeconds !== undefined ? { [env.escalationGraceSeconds]: String(o.escalationGraceSeconds) } : {}),
    ...(o.noticeRetryMs !== undefined ? { [env.noticeRetryDelayMs]: String(o.noticeRetryMs) } : {}),
    ...(o.retentionSeconds !== undefined ? { [env.resolvedRetentionSeconds]: String(o.retentionSeconds) } : {}),
    ...(o.rateLimits?.raisesPerMinute !== undefined ? { [env.rateLimitRaisesPerMinute]: String(o.rateLimits.raisesPerMinute) } : {}),
    ...(o.rateLimits?.verdictsPerMinute !== undefined ? { [env.rateLimitVerdictsPerMinute]: String(o.rateLimits.verdictsPerMinute) } : {}),
    [env.notifyLocal]: "true",
    ...(o.notifyRetryMs ? { [env.notifyRetryMs]: o.notifyRetryMs.join(",") } : {}),
    ...(o.notifyTimeoutMs !== undefined ? { [env.notifyTimeoutMs]: String(o.notifyTimeoutMs) } : {}),
    ...(o.notifySuccessRecordMs !== undefined ? { [env.notifySuccessRecordMs]: String(o.notifySuccessRecordMs) } : {}),
    ...(o.notifyTargetsKeptMs !== undefined ? { [env.notifyTargetsKeptMs]: String(o.notifyTargetsKeptMs) } : {}),
    ...(o.oidcIssuers ? { [env.oidcIssuers]: JSON.stringify(o.oidcIssuers) } : {}),
    ...timers,
  });
}

/** The SDK clients the handlers use, on this runtime's endpoints. */
function clientsFor(dynamo: DynamoDBClient, base: string): Clients {
  const local = { region: "us-east-1", credentials };
  return { db: documentClient(dynamo), connections: new ApiGatewayManagementApiClient({ endpoint: base, ...local }), scheduler: new SchedulerClient({ endpoint: base, ...local }) };
}

export async function startRuntime(o: RuntimeOptions): Promise<Runtime> {
  const log = o.log ?? ((line: string) => console.error(line));
  const table = o.table ?? "tollgate";
  const clock = o.clock ?? systemClock;
  let dynamo: DynamoLocal | undefined;
  if (!o.dynamoEndpoint) dynamo = await startDynamoLocal({ dataDir: o.dataDir ? join(o.dataDir, "dynamodb") : undefined });
  const dynamoEndpoint = o.dynamoEndpoint ?? dynamo!.endpoint;
  const client = new DynamoDBClient({ endpoint: dynamoEndpoint, region: "us-east-1", credentials });
  try {
    const db = documentClient(client);
    const streamArn = await ensureTables(client, table);
    const stateTable = localStateTable(table);
    const copies = o.redeliver ? 2 : 1;
    // The handlers' services need the port (the @connections and Scheduler endpoints): built once it is known.
    let invokeWithServices: Invoke | undefined;
    const invoke: Invoke = (name, event) => invokeWithServices!(name, event);
    const scheduler = createLocalScheduler({ db, stateTable, invoke, clock, log, copies, jitterSeconds: o.schedulerJitterSeconds });
    const gateway = createGateway({ invoke, clock, log, mounts: [scheduler.handle] });
    const port = await gateway.listen(o.port ?? 4000);
    const base = `http://127.0.0.1:${port}`;
    const clients = clientsFor(client, base);
    const config = functionConfig(o, base, table);
    const secret = new TextEncoder().encode(o.jwtSecret);
    const services = buildServices(config, clients, async () => secret, clock.now);
    const failureDir = o.dataDir ?? tmpdir();
    if (o.dataDir) mkdirSync(o.dataDir, { recursive: true });
    const poller = createStreamPoller({
      streams: new DynamoDBStreamsClient({ endpoint: dynamoEndpoint, region: "us-east-1", credentials }),
      db,
      invoke,
      accepts: (record) => (streamItemKinds as readonly (string | undefined)[]).includes(record.dynamodb?.NewImage?.kind?.S),
      stateTable,
      streamArn,
      pollMs: o.streamPollMs ?? 50,
      batchSize: o.streamBatchSize ?? 100,
      maxRetries: 5,
      copies,
      failureLog: join(failureDir, "stream-failures.jsonl"),
      log,
    });
    // A change is read as soon as the handler that made it returns, as the cloud's poller (always reading) would.
    invokeWithServices = invoker(services, (name) => name !== "streams" && poller.wake());
    await scheduler.start();
    await poller.start();
    return {
      port,
      httpUrl: base,
      wsUrl: `ws://127.0.0.1:${port}/ws`,
      dynamoEndpoint,
      table,
      clock,
      config,
      clients,
      services,
      invoke,
      pendingSchedules: scheduler.pending,
      holdReplies: gateway.holdReplies,
      async stop() {
        // The stream and the schedules stop first (they resume from DynamoDB Local next time), then the clients go.
        scheduler.stop();
        await poller.stop();
        await gateway.close();
        for (const c of [client, clients.connections, clients.scheduler]) c.destroy();
        await dynamo?.stop();
      },
    };
  } catch (error) {
    client.destroy();
    await dynamo?.stop();
    throw error;
  }
}
