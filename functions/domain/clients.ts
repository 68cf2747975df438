/**
 * The AWS SDK clients and the domain built over them, once per process: the one place the domain
 * meets real clients. Endpoints come from the SDK's standard variables (AWS_ENDPOINT_URL_DYNAMODB,
 * AWS_ENDPOINT_URL_SCHEDULER), so the same code talks to AWS or to the local runtime's stand-ins
 * without knowing which.
 */
import { ApiGatewayManagementApiClient } from "@aws-sdk/client-apigatewaymanagementapi";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { SchedulerClient } from "@aws-sdk/client-scheduler";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { readConfig } from "../shared/config.js";
import { connectionsPusher } from "./push.js";
import { createStores } from "./stores/index.js";
import { schedulerTimers } from "./timers.js";
import { createTollgate, type Tollgate } from "./tollgate.js";

export interface AwsClients {
  dynamo: DynamoDBDocumentClient;
  scheduler: SchedulerClient;
  connections: ApiGatewayManagementApiClient;
}

let built: { clients: AwsClients; tollgate: Tollgate } | undefined;

export function documentClient(): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(new DynamoDBClient({}), { marshallOptions: { removeUndefinedValues: true } });
}

function build() {
  const config = readConfig();
  const clients: AwsClients = {
    dynamo: documentClient(),
    scheduler: new SchedulerClient({}),
    connections: new ApiGatewayManagementApiClient({ endpoint: config.connectionsUrl }),
  };
  const tollgate = createTollgate({
    db: createStores(clients.dynamo, config.table),
    config,
    push: connectionsPusher(clients.connections),
    timers: schedulerTimers(clients.scheduler, config.scheduler),
  });
  return { clients, tollgate };
}

/** The domain, wired to real clients from this process's environment. */
export function domain(): Tollgate {
  built ??= build();
  return built.tollgate;
}

/** The clients every AWS call of the domain goes through (a test observes them through their middleware stacks). */
export function awsClients(): AwsClients {
  built ??= build();
  return built.clients;
}
