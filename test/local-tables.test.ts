/**
 * The local runtime's tables follow the shared definition: a table kept from an earlier run (a data
 * directory of `npm start`) with indexes the definition no longer has gets the definition's indexes,
 * one UpdateTable each, as DynamoDB allows. And the session lists read the previous indexes during a
 * stack's upgrade (docs/deploy.md "Upgrading").
 */
import { randomUUID } from "node:crypto";
import { CreateTableCommand, DeleteTableCommand, DescribeTableCommand, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { afterAll, expect, inject, it } from "vitest";
import { createStores } from "../functions/domain/stores/index.js";
import { documentClient } from "../functions/lambda/services.js";
import { keyAttributes, mainTable, previousSessionIndexes } from "../functions/shared/tables.js";
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

it("lists sessions through the previous all-attribute indexes while an upgrade has not built the new ones", async () => {
  const previous = `tables-prev-${randomUUID().slice(0, 8)}`;
  await client.send(
    new CreateTableCommand({
      TableName: previous,
      BillingMode: "PAY_PER_REQUEST",
      AttributeDefinitions: ["pk", "sk", "tenant_pk", "session_sk", "pending_pk"].map((name) => ({ AttributeName: name, AttributeType: "S" })),
      KeySchema: keySchema("pk", "sk"),
      GlobalSecondaryIndexes: Object.values(previousSessionIndexes).map((ix) => ({
        IndexName: ix.name,
        KeySchema: keySchema(ix.partitionKey, ix.sortKey),
        Projection: { ProjectionType: ix.projection },
      })),
    }),
  );
  try {
    const stores = createStores(documentClient(client), previous, { subscriberShards: 1, sessionIndexes: "previous" });
    const at = new Date().toISOString();
    for (const id of ["s_a", "s_b", "s_c"]) {
      await stores.sessions.create(stores.sessions.item({ tenant: "up", session_id: id, ancestors: [], owner_sub: "agent", created_at: at, updated_at: at }));
    }
    await stores.transact([stores.sessions.countUp({ tenant: "up", sessionId: "s_b", elicitationId: "el_b", at, listed: true })]);
    const first = await stores.sessions.page("up", { limit: 2, pending: false });
    expect(first.items.map((s) => s.session_id)).toEqual(["s_a", "s_b"]);
    const rest = await stores.sessions.page("up", { limit: 2, pending: false, after: first.last });
    expect(rest.items.map((s) => s.session_id)).toEqual(["s_c"]);
    const pending = await stores.sessions.page("up", { limit: 10, pending: true });
    expect(pending.items.map((s) => [s.session_id, s.pending_count])).toEqual([["s_b", 1]]);
  } finally {
    await client.send(new DeleteTableCommand({ TableName: previous }));
  }
});
