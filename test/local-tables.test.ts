/**
 * The local runtime's tables follow the shared definition: a table kept from an earlier run (a data
 * directory of `npm start`) with indexes the definition no longer has gets the definition's indexes,
 * one UpdateTable each, as DynamoDB allows.
 */
import { randomUUID } from "node:crypto";
import { CreateTableCommand, DeleteTableCommand, DescribeTableCommand, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { afterAll, expect, inject, it } from "vitest";
import { keyAttributes, mainTable } from "../functions/shared/tables.js";
import { ensureTables, localStateTable } from "../local/tables.js";

const client = new DynamoDBClient({ endpoint: inject("dynamoEndpoint"), region: "us-east-1", credentials: { accessKeyId: "local", secretAccessKey: "local" } });
const table = `tables-${randomUUID().slice(0, 8)}`;

afterAll(async () => {
  for (const name of [table, localStateTable(table)]) await client.send(new DeleteTableCommand({ TableName: name })).catch(() => undefined);
  client.destroy();
});

const keySchema = (partitionKey: string, sortKey: string) => [
  { AttributeName: partitionKey, KeyType: "HASH" as const },
  { AttributeName: sortKey, KeyType: "RANGE" as const },
];

it("replaces a kept table's indexes that the definition no longer has with the ones it has, projected as it says", async () => {
  await client.send(
    new CreateTableCommand({
      TableName: table,
      BillingMode: "PAY_PER_REQUEST",
      AttributeDefinitions: keyAttributes.filter((name) => name !== "pending_pk").map((name) => ({ AttributeName: name, AttributeType: "S" })),
      KeySchema: keySchema("pk", "sk"),
      GlobalSecondaryIndexes: [
        { IndexName: "sessions-by-tenant", KeySchema: keySchema("tenant_pk", "session_sk"), Projection: { ProjectionType: "ALL" } },
        { IndexName: mainTable.indexes.history.name, KeySchema: keySchema("history_pk", "history_sk"), Projection: { ProjectionType: "ALL" } },
      ],
      StreamSpecification: { StreamEnabled: true, StreamViewType: mainTable.streamView },
    }),
  );
  const arn = await ensureTables(client, table);
  const described = (await client.send(new DescribeTableCommand({ TableName: table }))).Table!;
  expect(arn).toBe(described.LatestStreamArn);
  const indexes = (described.GlobalSecondaryIndexes ?? []).map((ix) => ({ name: ix.IndexName, keys: ix.KeySchema?.map((k) => k.AttributeName), projection: ix.Projection?.ProjectionType }));
  expect(indexes.sort((a, b) => a.name!.localeCompare(b.name!))).toEqual(
    Object.values(mainTable.indexes)
      .map((ix) => ({ name: ix.name, keys: [ix.partitionKey, ix.sortKey], projection: ix.projection }))
      .sort((a, b) => a.name.localeCompare(b.name)),
  );
});
