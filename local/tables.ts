/**
 * Creates the tables from the shared definition (the same one CDK reads), plus the local runtime's
 * own table for what AWS would keep for us: schedules and stream checkpoints. A table kept from an
 * earlier run gets the indexes the definition has and loses those it no longer has.
 */
import { CreateTableCommand, DescribeTableCommand, ResourceInUseException, UpdateTableCommand, type DynamoDBClient, type GlobalSecondaryIndex, type KeySchemaElement } from "@aws-sdk/client-dynamodb";
import { keyAttributes, mainTable } from "../functions/shared/tables.js";

export const localStateTable = (table: string) => `${table}-local-runtime`;

const keySchema = (partitionKey: string, sortKey: string): KeySchemaElement[] => [
  { AttributeName: partitionKey, KeyType: "HASH" },
  { AttributeName: sortKey, KeyType: "RANGE" },
];

const attributeDefinitions = keyAttributes.map((name) => ({ AttributeName: name, AttributeType: "S" as const }));

const indexes: GlobalSecondaryIndex[] = Object.values(mainTable.indexes).map((index) => ({
  IndexName: index.name,
  KeySchema: keySchema(index.partitionKey, index.sortKey),
  Projection: { ProjectionType: index.projection },
}));

async function create(client: DynamoDBClient, command: CreateTableCommand): Promise<boolean> {
  try {
    await client.send(command);
    return true;
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error; // kept from an earlier run
    return false;
  }
}

/** One index created or deleted per UpdateTable, as DynamoDB allows. */
async function alignIndexes(client: DynamoDBClient, table: string, existing: string[]): Promise<void> {
  for (const index of indexes.filter((ix) => !existing.includes(ix.IndexName!))) {
    const keys = attributeDefinitions.filter((a) => index.KeySchema!.some((k) => k.AttributeName === a.AttributeName));
    await client.send(new UpdateTableCommand({ TableName: table, AttributeDefinitions: keys, GlobalSecondaryIndexUpdates: [{ Create: index }] }));
  }
  for (const name of existing.filter((n) => !indexes.some((ix) => ix.IndexName === n))) {
    await client.send(new UpdateTableCommand({ TableName: table, GlobalSecondaryIndexUpdates: [{ Delete: { IndexName: name } }] }));
  }
}

/** A new index is usable once it is ACTIVE (it backfills first); a deleted one lingers while DELETING. */
async function untilIndexesReady(client: DynamoDBClient, table: string) {
  const wanted = indexes.map((ix) => ix.IndexName).sort();
  for (let tries = 0; ; tries++) {
    const described = await client.send(new DescribeTableCommand({ TableName: table }));
    const present = described.Table?.GlobalSecondaryIndexes ?? [];
    const ready =
      present.every((ix) => ix.IndexStatus === "ACTIVE") &&
      present
        .map((ix) => ix.IndexName)
        .sort()
        .join() === wanted.join();
    if (ready) return described;
    if (tries >= 600) throw new Error(`table ${table}: its indexes are not ready after a minute`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Creates both tables if missing; returns the main table's stream ARN. */
export async function ensureTables(client: DynamoDBClient, table: string): Promise<string> {
  const created = await create(
    client,
    new CreateTableCommand({
      TableName: table,
      BillingMode: "PAY_PER_REQUEST",
      AttributeDefinitions: attributeDefinitions,
      KeySchema: keySchema(mainTable.partitionKey, mainTable.sortKey),
      GlobalSecondaryIndexes: indexes,
      StreamSpecification: { StreamEnabled: true, StreamViewType: mainTable.streamView },
    }),
  );
  await create(
    client,
    new CreateTableCommand({
      TableName: localStateTable(table),
      BillingMode: "PAY_PER_REQUEST",
      AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }],
      KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
    }),
  );
  let described = await client.send(new DescribeTableCommand({ TableName: table }));
  if (!created) {
    await alignIndexes(
      client,
      table,
      (described.Table?.GlobalSecondaryIndexes ?? []).map((ix) => ix.IndexName!),
    );
    described = await untilIndexesReady(client, table);
  }
  const arn = described.Table?.LatestStreamArn;
  if (!arn) throw new Error(`table ${table} has no stream`);
  return arn;
}
