/**
 * The DynamoDB Streams event source mapping's stand-in: reads the real DynamoDB Local stream and
 * invokes the streams handler with `DynamoDBStreamEvent` batches, one shard at a time in order.
 * A reported `batchItemFailures` entry retries the batch from that record (as Lambda does), up to
 * `maxRetries`; then the records go to the failure log, as the cloud sends them to its SQS queue.
 * Checkpoints are kept in DynamoDB Local, so a restart resumes where it stopped.
 *
 * An idle stream is polled every `pollMs`, and at once when `wake()` says a handler just ran (and so
 * may have written): a change reaches its reaction in one GetRecords, not half a poll interval later.
 * Checkpoints are written at most every `checkpointMs` per shard (and when a shard closes or the
 * poller stops), not after every batch: a crash replays at most that much of the stream, which every
 * reaction tolerates (delivery is at least once, as with Lambda's event source mapping).
 */
import { appendFileSync } from "node:fs";
import {
  DescribeStreamCommand,
  ExpiredIteratorException,
  GetRecordsCommand,
  type GetRecordsCommandOutput,
  GetShardIteratorCommand,
  TrimmedDataAccessException,
  type DynamoDBStreamsClient,
  type _Record,
} from "@aws-sdk/client-dynamodb-streams";
import { GetCommand, PutCommand, type DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { DynamoDBBatchResponse } from "aws-lambda";
import type { Invoke } from "./lambda.js";

export interface StreamPollerOptions {
  streams: DynamoDBStreamsClient;
  db: DynamoDBDocumentClient;
  /** Invokes the streams function with the runtime's services. */
  invoke: Invoke;
  /** The event source mapping's filter: a record it refuses is passed over, as Lambda's event filtering drops it. */
  accepts?: (record: _Record) => boolean;
  stateTable: string;
  streamArn: string;
  /** Wait between polls of an idle stream (a busy one, or one woken by `wake()`, is polled again at once). */
  pollMs: number;
  /** How often a shard's checkpoint is saved while records flow; 0 saves after every batch. */
  checkpointMs?: number;
  batchSize: number;
  maxRetries: number;
  /** How many times each batch is handed over (2 to rehearse duplicate delivery). */
  copies: number;
  failureLog: string;
  log: (line: string) => void;
}

interface Shard {
  id: string;
  parent?: string;
  iterator?: string;
  checkpoint?: string;
  closed: boolean;
  /** The checkpoint as last saved, and when. */
  saved?: string;
  savedAt: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function createStreamPoller(o: StreamPollerOptions) {
  const shards = new Map<string, Shard>();
  let stopped = false;
  let running: Promise<void> | undefined;
  let lastRefresh = 0;
  /** Set by `wake()`: something may have been written since the last GetRecords began. */
  let woken = false;
  let wakeUp: (() => void) | undefined;
  const checkpointMs = o.checkpointMs ?? 1_000;

  const checkpointKey = (id: string) => ({ pk: `checkpoint#${o.streamArn}#${id}` });

  async function refreshShards() {
    let start: string | undefined;
    do {
      const out = await o.streams.send(new DescribeStreamCommand({ StreamArn: o.streamArn, ExclusiveStartShardId: start }));
      for (const s of out.StreamDescription?.Shards ?? []) {
        if (!s.ShardId || shards.has(s.ShardId)) continue;
        const saved = await o.db.send(new GetCommand({ TableName: o.stateTable, Key: checkpointKey(s.ShardId) }));
        const checkpoint = saved.Item?.sequence as string | undefined;
        shards.set(s.ShardId, { id: s.ShardId, parent: s.ParentShardId, checkpoint, closed: saved.Item?.closed === true, saved: checkpoint, savedAt: Date.now() });
      }
      start = out.StreamDescription?.LastEvaluatedShardId;
    } while (start);
    lastRefresh = Date.now();
  }

  const toLambdaRecord = (r: _Record) => ({
    ...r,
    eventSourceARN: o.streamArn,
    dynamodb: { ...r.dynamodb, ApproximateCreationDateTime: Math.floor((r.dynamodb?.ApproximateCreationDateTime?.getTime() ?? Date.now()) / 1000) },
  });

  async function deliver(records: _Record[]) {
    let batch = records;
    for (let attempt = 0; batch.length > 0; attempt++) {
      let failedFrom: string | undefined;
      try {
        let result: DynamoDBBatchResponse | undefined;
        for (let copy = 0; copy < o.copies; copy++) result = await o.invoke<DynamoDBBatchResponse | undefined>("streams", { Records: batch.map(toLambdaRecord) });
        failedFrom = result?.batchItemFailures?.[0]?.itemIdentifier;
        if (!failedFrom) return;
      } catch (error) {
        const first = (error as { recordErrors?: Error[] }).recordErrors?.[0] ?? (error as Error);
        o.log(`streams handler failed the whole batch: ${first.name}: ${first.message}`);
        failedFrom = batch[0].dynamodb?.SequenceNumber;
      }
      const index = Math.max(
        0,
        batch.findIndex((r) => r.dynamodb?.SequenceNumber === failedFrom),
      );
      batch = batch.slice(index);
      if (attempt >= o.maxRetries) {
        appendFileSync(o.failureLog, `${batch.map((r) => JSON.stringify(toLambdaRecord(r))).join("\n")}\n`);
        o.log(`${batch.length} stream record(s) kept failing; written to ${o.failureLog}`);
        return;
      }
      await sleep(100 * 2 ** attempt);
    }
  }

  async function iterator(shard: Shard): Promise<string | undefined> {
    const out = await o.streams.send(
      new GetShardIteratorCommand({
        StreamArn: o.streamArn,
        ShardId: shard.id,
        ShardIteratorType: shard.checkpoint ? "AFTER_SEQUENCE_NUMBER" : "TRIM_HORIZON",
        SequenceNumber: shard.checkpoint,
      }),
    );
    return out.ShardIterator;
  }

  async function save(shard: Shard) {
    const sequence = shard.checkpoint;
    await o.db.send(new PutCommand({ TableName: o.stateTable, Item: { ...checkpointKey(shard.id), sequence, closed: shard.closed } }));
    shard.saved = sequence;
    shard.savedAt = Date.now();
  }

  /** Save the checkpoints that moved: those due now, or every one (`all`, when stopping). */
  async function saveDue(all: boolean) {
    const due = [...shards.values()].filter((s) => s.checkpoint !== s.saved && (all || Date.now() - s.savedAt >= checkpointMs));
    await Promise.all(due.map(save));
  }

  /** One read of one shard; the number of records it handled. */
  async function poll(shard: Shard): Promise<number> {
    shard.iterator ??= await iterator(shard);
    let out: GetRecordsCommandOutput;
    try {
      out = await o.streams.send(new GetRecordsCommand({ ShardIterator: shard.iterator, Limit: o.batchSize }));
    } catch (error) {
      // DynamoDB Local also calls an iterator taken on a still empty shard "trimmed" once the first
      // record arrives, and keeps refusing it: a new one from the checkpoint reads on, losing nothing.
      if (!(error instanceof ExpiredIteratorException || error instanceof TrimmedDataAccessException)) throw error;
      shard.iterator = undefined;
      return 0;
    }
    const records = out.Records ?? [];
    if (records.length > 0) {
      await deliver(o.accepts ? records.filter(o.accepts) : records);
      shard.checkpoint = records.at(-1)!.dynamodb!.SequenceNumber;
    }
    shard.iterator = out.NextShardIterator;
    shard.closed = !shard.iterator;
    // A closed shard is recorded at once (its children wait on it); an open one when its checkpoint is due.
    if (shard.closed || (records.length > 0 && Date.now() - shard.savedAt >= checkpointMs)) await save(shard);
    return records.length;
  }

  /** A child shard waits until its parent is read to the end, so one item's changes stay in order. */
  const ready = (shard: Shard) => !shard.closed && (!shard.parent || !shards.has(shard.parent) || shards.get(shard.parent)!.closed);

  /** Sleep `ms`, or less if `wake()` comes first. */
  function idle(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        wakeUp = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      wakeUp = done;
    });
  }

  async function loop() {
    while (!stopped) {
      try {
        woken = false;
        if (Date.now() - lastRefresh > 5_000 || [...shards.values()].every((s) => s.closed)) await refreshShards();
        const counts = await Promise.all([...shards.values()].filter(ready).map(poll));
        if (counts.every((n) => n === 0) && !woken && !stopped) {
          await saveDue(false);
          await idle(o.pollMs);
        }
      } catch (error) {
        if (stopped) break;
        o.log(`stream poller: ${(error as Error).message}`);
        await sleep(500);
      }
    }
    await saveDue(true).catch((error) => o.log(`stream poller: checkpoint not saved: ${(error as Error).message}`));
  }

  return {
    async start() {
      await refreshShards();
      running = loop();
    },
    /** A handler just ran and may have written: poll now rather than after the idle pause. */
    wake() {
      woken = true;
      wakeUp?.();
    },
    async stop() {
      stopped = true;
      wakeUp?.();
      await running;
    },
  };
}
