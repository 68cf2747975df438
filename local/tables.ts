/**
 * Creates the tables from the shared definition (the same one CDK reads), plus the local runtime's
 * own table for what AWS would keep for us: schedules and stream checkpoints.
 */
import { CreateTableCommand, DescribeTableCommand, ResourceInUseException, type DynamoDBClient, type KeySchemaElement } from "@aws-sdk/client-dynamodb";
import { keyAttributes, mainTable } from "../functions/shared/tables.js";

export const localStateTable = (table: string) => `${table}-local-runtime`;

const keySchema = (partitionKey: string, sortKey: string): KeySchemaElement[] => [
  { AttributeName: partitionKey, KeyType: "HASH" },
  { AttributeName: sortKey, KeyType: "RANGE" },
];

async function create(client: DynamoDBClient, command: CreateTableCommand): Promise<void> {
  try {
    await client.send(command);
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error; // kept from an earlier run
  }
}

/** Creates both tables if missing; returns the main table's stream ARN. */
export async function ensureTables(client: DynamoDBClient, table: string): Promise<string> {
  await create(
    client,
    new CreateTableCommand({
      TableName: table,
      BillingMode: "PAY_PER_REQUEST",
      AttributeDefinitions: keyAttributes.map((name) => ({ AttributeName: name, AttributeType: "S" })),
      KeySchema: keySchema(mainTable.partitionKey, mainTable.sortKey),
      GlobalSecondaryIndexes: Object.values(mainTable.indexes).map((index) => ({
        IndexName: index.name,
        KeySchema: keySchema(index.partitionKey, index.sortKey),
        Projection: { ProjectionType: "ALL" },
      })),
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
  const described = await client.send(new DescribeTableCommand({ TableName: table }));
  const arn = described.Table?.LatestStreamArn;
  if (!arn) throw new Error(`table ${table} has no stream`);
  return arn;
}
