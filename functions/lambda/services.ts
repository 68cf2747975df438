/**
 * What a handler works with: the domain over the AWS SDK clients, the token key and the clock; the
 * one place the domain meets real clients (the composition root).
 * In Lambda they are built once per process from the environment CDK sets (endpoints from the SDK's
 * standard variables); the local runtime builds its own and hands them to each invocation on the
 * Lambda context, so several runtimes can share one process without touching `process.env`.
 */
import { ApiGatewayManagementApiClient, DeleteConnectionCommand } from "@aws-sdk/client-apigatewaymanagementapi";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { SchedulerClient } from "@aws-sdk/client-scheduler";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { connectionsPusher, type Pusher } from "../domain/push.js";
import { createStores } from "../domain/stores/index.js";
import { schedulerTimers } from "../domain/timers.js";
import { createTollgate, type Tollgate } from "../domain/tollgate.js";
import { signingKey, verifyToken } from "../shared/auth.js";
import { readConfig, type Config } from "../shared/config.js";
import { linkSigner, type LinkGrant } from "../shared/links.js";
import type { Claims } from "../shared/schemas.js";

export interface Services {
  tollgate: Tollgate;
  /** The JWT secret: verifies tokens and signs pagination cursors. */
  signingKey(): Promise<Uint8Array>;
  /** The claims of a valid bearer token (Tollgate's own or a configured OpenID issuer's), checked against `now`. */
  verify(token: string | undefined): Promise<Claims>;
  /** The grant of a valid approval link, checked against `now`. */
  verifyLink(link: string | undefined): Promise<LinkGrant>;
  /** Milliseconds since the epoch, the clock every rule and check reads. */
  now(): number;
  push: Pusher;
  /** Close a WebSocket connection (`DELETE @connections/{id}`); one already gone is fine. */
  hangUp(connectionId: string): Promise<void>;
}

/** The clients every AWS call of the domain goes through (a test observes them through their middleware stacks). */
export interface Clients {
  db: DynamoDBDocumentClient;
  connections: ApiGatewayManagementApiClient;
  scheduler: SchedulerClient;
}

export function documentClient(client = new DynamoDBClient({})): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
}

export function buildServices(config: Config, clients: Clients, key: () => Promise<Uint8Array>, now: () => number = Date.now): Services {
  const push = connectionsPusher(clients.connections);
  const links = linkSigner(key, now);
  return {
    tollgate: createTollgate({ db: createStores(clients.db, config.table, config), config, push, timers: schedulerTimers(clients.scheduler, config.scheduler), links, now }),
    signingKey: key,
    verify: async (token) => verifyToken(token, await key(), now(), config.oidcIssuers),
    verifyLink: links.verify,
    now,
    push,
    async hangUp(connectionId) {
      await clients.connections.send(new DeleteConnectionCommand({ ConnectionId: connectionId })).catch((error: { name?: string }) => {
        if (error.name !== "GoneException") throw error;
      });
    },
  };
}

let fromEnvironment: Services | undefined;

/** The services of this invocation: the local runtime's when it passed them on the context, else this process's. */
export function servicesOf(context: unknown): Services {
  const local = (context as { services?: Services } | undefined)?.services;
  if (local) return local;
  fromEnvironment ??= (() => {
    const config = readConfig();
    const clients = { db: documentClient(), connections: new ApiGatewayManagementApiClient({ endpoint: config.connectionsUrl }), scheduler: new SchedulerClient({}) };
    return buildServices(config, clients, signingKey);
  })();
  return fromEnvironment;
}
