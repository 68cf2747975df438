/** One DynamoDB Local for the whole run (3 s to start); every test file gets its own tables in it. */
import type { TestProject } from "vitest/node";
import { startDynamoLocal, type DynamoLocal } from "../../local/dynamodb.js";

let dynamo: DynamoLocal | undefined;

export async function setup(project: TestProject) {
  dynamo = await startDynamoLocal();
  project.provide("dynamoEndpoint", dynamo.endpoint);
}

export async function teardown() {
  await dynamo?.stop();
}

declare module "vitest" {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}
