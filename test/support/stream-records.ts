/** Every record in a running harness's table stream so far, read from DynamoDB Local's stream as a poller would. */
import { DescribeStreamCommand, DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand, type _Record } from "@aws-sdk/client-dynamodb-streams";
import { DescribeTableCommand, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { Harness } from "./tollgate.js";

const credentials = { accessKeyId: "local", secretAccessKey: "local" };

/** The records of every shard, oldest first, shaped as the streams function receives them (ARN set, times zeroed). */
export async function allRecords(t: Harness): Promise<_Record[]> {
  const dynamo = new DynamoDBClient({ endpoint: t.runtime.dynamoEndpoint, region: "us-east-1", credentials });
  const streams = new DynamoDBStreamsClient({ endpoint: t.runtime.dynamoEndpoint, region: "us-east-1", credentials });
  try {
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
  } finally {
    dynamo.destroy();
    streams.destroy();
  }
}
