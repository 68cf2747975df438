/** Issue 2: the streams handler is idempotent: the same batch twice leaves counts exact and sends nothing twice. */
import { DescribeStreamCommand, DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand, type _Record } from "@aws-sdk/client-dynamodb-streams";
import { DescribeTableCommand, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, expect, it } from "vitest";
import { invoke } from "../local/lambda.js";
import { sleep, startTollgate, type Harness } from "./support/tollgate.js";

let t: Harness;
beforeAll(async () => (t = await startTollgate()));
afterAll(() => t?.stop());

const credentials = { accessKeyId: "local", secretAccessKey: "local" };

async function allRecords(): Promise<_Record[]> {
  const dynamo = new DynamoDBClient({ endpoint: t.runtime.dynamoEndpoint, region: "us-east-1", credentials });
  const streams = new DynamoDBStreamsClient({ endpoint: t.runtime.dynamoEndpoint, region: "us-east-1", credentials });
  const arn = (await dynamo.send(new DescribeTableCommand({ TableName: t.runtime.table }))).Table!.LatestStreamArn!;
  const shards = (await streams.send(new DescribeStreamCommand({ StreamArn: arn }))).StreamDescription!.Shards!;
  const records: _Record[] = [];
  for (const shard of shards) {
    let iterator = (await streams.send(new GetShardIteratorCommand({ StreamArn: arn, ShardId: shard.ShardId, ShardIteratorType: "TRIM_HORIZON" }))).ShardIterator;
    while (iterator) {
      const out = await streams.send(new GetRecordsCommand({ ShardIterator: iterator }));
      records.push(...(out.Records ?? []));
      if ((out.Records ?? []).length === 0) break;
      iterator = out.NextShardIterator;
    }
  }
  return records.map((r) => ({ ...r, eventSourceARN: arn, dynamodb: { ...r.dynamodb, ApproximateCreationDateTime: 0 as never } }));
}

it("replays of the same batch change no count and push no second verdict", async () => {
  const human = await t.token("human");
  const socket = await t.socket(await t.token("runner"));
  await socket.request({ action: "hello", sessions: [{ session_id: "conv_s" }] });
  for (const id of ["e1", "e2", "e3"]) await socket.request({ action: "elicit", session_id: "conv_s", elicitation_id: id, params: { message: `ok ${id}?` } });
  for (const id of ["e1", "e2"]) await t.http(human, "POST", "/v1/sessions/conv_s/events", { type: "approval", elicitation_id: id, action: "accept" });
  await socket.next((f) => f.elicitation_id === "e2" && f.type === "elicitation.verdict");
  const settled = await t.quietScan();

  const batch = { Records: await allRecords() };
  expect(batch.Records.length).toBeGreaterThan(6);
  for (let replay = 0; replay < 2; replay++) {
    const result = await invoke<{ batchItemFailures: unknown[] }>("streams", batch);
    expect(result.batchItemFailures).toEqual([]);
  }
  await sleep(300);

  for (const id of ["e1", "e2"]) expect(socket.count((f) => f.type === "elicitation.verdict" && f.elicitation_id === id)).toBe(1);
  expect(socket.count((f) => f.type === "elicitation.verdict" && f.elicitation_id === "e3")).toBe(0);
  const session = await t.http(human, "GET", "/v1/sessions/conv_s");
  expect(session.body.pending_elicitations_count).toBe(1);
  expect(session.body.pending_elicitations.map((e: { elicitation_id: string }) => e.elicitation_id)).toEqual(["e3"]);
  const pending = await t.http(human, "GET", "/v1/sessions?pending=true");
  expect(pending.body.sessions.map((s: { session_id: string }) => s.session_id)).toEqual(["conv_s"]);
  // Items the replay could have touched (counts, claims, rows) are as they were.
  const after = await t.quietScan();
  const stable = (items: Record<string, any>[]) => items.filter((i) => i.sk.S !== "CONNECTION").map((i) => ({ ...i, updated_at: undefined }));
  expect(stable(after)).toEqual(stable(settled));
});
