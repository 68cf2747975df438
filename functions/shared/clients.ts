/**
 * The AWS SDK clients and the domain built over them, once per process. Endpoints come from the
 * SDK's standard variables (AWS_ENDPOINT_URL_DYNAMODB, AWS_ENDPOINT_URL_SCHEDULER), so the same
 * code talks to AWS or to the local runtime's stand-ins without knowing which.
 */
import { ApiGatewayManagementApiClient } from "@aws-sdk/client-apigatewaymanagementapi";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { SchedulerClient } from "@aws-sdk/client-scheduler";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { createTollgate, type Tollgate } from "../domain/tollgate.js";
import { connectionsPusher } from "../domain/push.js";
import { schedulerTimers } from "../domain/timers.js";
import { readConfig } from "./config.js";

let tollgate: Tollgate | undefined;

export function documentClient(): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(new DynamoDBClient({}), { marshallOptions: { removeUndefinedValues: true } });
}

/** The domain, wired to real clients from this process's environment. */
export function domain(): Tollgate {
  if (tollgate) return tollgate;
  const config = readConfig();
  tollgate = createTollgate({
    db: documentClient(),
    config,
    push: connectionsPusher(new ApiGatewayManagementApiClient({ endpoint: config.connectionsUrl })),
    timers: schedulerTimers(new SchedulerClient({}), config.scheduler),
  });
  return tollgate;
}
