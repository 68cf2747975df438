/**
 * The floor: what no design could beat on this machine, measured in the same run as the figures it
 * scales. A raw WebSocket echo round trip (server and client in this process) plus one conditional
 * UpdateItem against the same DynamoDB Local the runtime uses, on a small table of its own (no stream, no
 * indexes: see floorTable).
 */
import { CreateTableCommand, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { BatchWriteCommand, DynamoDBDocumentClient, GetCommand, TransactWriteCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import WebSocket, { WebSocketServer } from "ws";
import { now } from "../stats.js";

const credentials = { accessKeyId: "local", secretAccessKey: "local" };

/**
 * One table for every floor measurement of a run, without a stream. DynamoDB Local's writes get
 * slower with every further stream-enabled table it holds (measured: 1.2 ms per UpdateItem with one
 * such table, 8 ms with six), so the floor must not add one next to Tollgate's: it would slow the
 * runtime down, and itself. With one stream-enabled table a write costs what it costs without one.
 */
let created: Promise<string> | undefined;
export function floorTable(client: DynamoDBClient): Promise<string> {
  created ??= client
    .send(
      new CreateTableCommand({
        TableName: "bench-floor",
        BillingMode: "PAY_PER_REQUEST",
        AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }],
        KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
      }),
    )
    .then(() => "bench-floor");
  return created;
}

/** Items `<prefix>0 .. <prefix>n-1`, each pending, for one conditional write apiece. */
export async function seedPending(db: DynamoDBDocumentClient, table: string, prefix: string, n: number, extra: Record<string, string> = {}) {
  for (let i = 0; i < n; i += 25) {
    const batch = Array.from({ length: Math.min(25, n - i) }, (_, j) => ({ PutRequest: { Item: { pk: `${prefix}${i + j}`, status: "pending", ...extra } } }));
    await db.send(new BatchWriteCommand({ RequestItems: { [table]: batch } }));
  }
}

/** The floor's one write: a pending item resolved by a conditional UpdateItem. */
export function resolveOnce(db: DynamoDBDocumentClient, table: string, pk: string) {
  return db.send(
    new UpdateCommand({
      TableName: table,
      Key: { pk },
      UpdateExpression: "SET #s = :resolved, verdict = :v",
      ConditionExpression: "#s = :pending",
      ExpressionAttributeNames: { "#s": "status" },
      ExpressionAttributeValues: { ":resolved": "resolved", ":pending": "pending", ":v": { action: "accept", reason: "answered" } },
    }),
  );
}

export async function floorPhase(dynamoEndpoint: string, samples: number, tag: string) {
  const client = new DynamoDBClient({ endpoint: dynamoEndpoint, region: "us-east-1", credentials });
  const db = DynamoDBDocumentClient.from(client);
  const table = await floorTable(client);
  await seedPending(db, table, `${tag}-f`, samples);
  const server = new WebSocketServer({ host: "127.0.0.1", port: 0, perMessageDeflate: false });
  server.on("connection", (ws) => ws.on("message", (data, binary) => ws.send(data, { binary })));
  await new Promise<void>((r) => server.once("listening", () => r()));
  const port = (server.address() as { port: number }).port;
  const ws = new WebSocket(`ws://127.0.0.1:${port}`, { perMessageDeflate: false });
  await new Promise<void>((r, f) => (ws.once("open", () => r()), ws.once("error", f)));
  let echoed: (() => void) | undefined;
  ws.on("message", () => echoed?.());
  const frame = JSON.stringify({ type: "elicitation.verdict", elicitation_id: "elicit_0123456789abcdef", session_id: "bench_rt", action: "accept", reason: "answered" });
  const echoOnce = () =>
    new Promise<void>((r) => {
      echoed = r;
      ws.send(frame);
    });
  const total: number[] = [];
  const echo: number[] = [];
  const update: number[] = [];
  for (let i = 0; i < samples; i++) {
    const t0 = now();
    await echoOnce();
    const t1 = now();
    await resolveOnce(db, table, `${tag}-f${i}`);
    const t2 = now();
    echo.push(t1 - t0);
    update.push(t2 - t1);
    total.push(t2 - t0);
  }
  // The design's own floor: the DynamoDB calls a verdict cannot do without, issued directly, plus the
  // echo: read the elicitation (GetItem), then resolve it (TransactWriteItems: the elicitation
  // pending -> resolved with its delivery claim, the session's count with its list of pending ids, and
  // the token's rate counter). What the runtime adds on top of this is its own overhead.
  const design: number[] = [];
  const designGet: number[] = [];
  const designTransaction: number[] = [];
  const designSamples = Math.min(samples, 1000);
  await seedPending(db, table, `${tag}-d`, designSamples, { connection_id: "c1" });
  for (let i = 0; i < designSamples; i++) {
    const t0 = now();
    await echoOnce();
    const t1 = now();
    await db.send(new GetCommand({ TableName: table, Key: { pk: `${tag}-d${i}` }, ConsistentRead: true }));
    const t2 = now();
    await db.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: table,
              Key: { pk: `${tag}-d${i}` },
              UpdateExpression: "SET #s = :resolved, verdict = :v, delivered_to = :c",
              ConditionExpression: "#s = :pending AND connection_id = :c",
              ExpressionAttributeNames: { "#s": "status" },
              ExpressionAttributeValues: { ":resolved": "resolved", ":pending": "pending", ":v": { action: "accept", reason: "answered" }, ":c": "c1" },
            },
          },
          {
            Update: {
              TableName: table,
              Key: { pk: "session" },
              UpdateExpression: "ADD pending_count :minus DELETE pending_ids :id",
              ExpressionAttributeValues: { ":minus": -1, ":id": new Set([`${tag}-d${i}`]) },
            },
          },
          {
            Update: {
              TableName: table,
              Key: { pk: "rate" },
              UpdateExpression: "ADD n :one",
              ConditionExpression: "attribute_not_exists(n) OR n < :limit",
              ExpressionAttributeValues: { ":one": 1, ":limit": 1_000_000 },
            },
          },
        ],
      }),
    );
    const t3 = now();
    designGet.push(t2 - t1);
    designTransaction.push(t3 - t2);
    design.push(t3 - t0);
  }
  ws.close();
  await new Promise<void>((r) => server.close(() => r()));
  client.destroy();
  return { total, echo, update, design, designGet, designTransaction };
}
