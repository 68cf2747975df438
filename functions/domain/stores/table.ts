/**
 * The document client's calls on Tollgate's one table, as the stores use them: conditional writes
 * that report a lost condition instead of throwing, one Query-all loop, one BatchGet loop and one
 * transaction with its retry. Only the stores call it; the rules in `domain/` never see a command.
 */
import {
  BatchGetCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
  type DeleteCommandInput,
  type DynamoDBDocumentClient,
  type PutCommandInput,
  type QueryCommandInput,
  type TransactWriteCommandInput,
  type UpdateCommandInput,
} from "@aws-sdk/lib-dynamodb";

export type Key = { pk: string; sk: string };
/** One write of a transaction, as a store builds it. */
export type Write = NonNullable<TransactWriteCommandInput["TransactItems"]>[number];
/** The writes of a cancelled transaction whose condition did not hold, by their index. */
export type LostConditions = ReadonlySet<number>;

/** The per-item reason codes of a cancelled transaction; none for any other error. */
function cancellationCodes(error: unknown): (string | undefined)[] {
  const e = error as { name?: string; CancellationReasons?: { Code?: string }[] };
  return e?.name === "TransactionCanceledException" ? (e.CancellationReasons ?? []).map((r) => r.Code) : [];
}

/** True when a single write lost its condition. */
const lostCondition = (error: unknown) => (error as { name?: string })?.name === "ConditionalCheckFailedException";

/** Keys one BatchGetItem may name. */
const BATCH_GET_MAX = 100;

/** Calls of a BatchGetItem that DynamoDB left partly unprocessed (it does when it throttles), after which the read fails. */
const BATCH_GET_TRIES = 6;

/** Tries of a transaction cancelled for a reason that passes (the AWS SDK does not retry those). */
const TRANSACTION_TRIES = 5;

/**
 * Reasons a transaction was cancelled that pass, so another try may go through: a concurrent transaction held
 * one of its items, or the table or an index had no capacity left for it (a provisioned table at
 * its ceiling, or one partition's limit).
 */
const passingReasons = new Set(["TransactionConflict", "ThrottlingError"]);

/** The pause before another try: random, and growing with each (about 40, 80, 160 ms and on at most). */
const pauseBefore = (attempt: number) => new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * 2 ** attempt));

/** The outcome of a conditional write: what it returns, or undefined when its condition did not hold. */
async function unlessLost<T>(write: Promise<T>): Promise<T | undefined> {
  try {
    return await write;
  } catch (error) {
    if (lostCondition(error)) return undefined;
    throw error;
  }
}

type Update = Omit<UpdateCommandInput, "TableName" | "ReturnValues">;

export function createTable(client: DynamoDBDocumentClient, name: string) {
  /** One page of a Query, and the key to start the next one at. */
  async function queryPage<T>(input: Omit<QueryCommandInput, "TableName">): Promise<{ items: T[]; lastKey?: Record<string, unknown> }> {
    const out = await client.send(new QueryCommand({ ...input, TableName: name }));
    return { items: (out.Items ?? []) as T[], lastKey: out.LastEvaluatedKey };
  }

  return {
    name,
    /** A GetItem, consistent unless `consistent: false` says otherwise (half the read units, but a write of the last moment may be missing). */
    async get<T>(key: Key, { consistent = true } = {}): Promise<T | undefined> {
      const out = await client.send(new GetCommand({ TableName: name, Key: key, ConsistentRead: consistent }));
      return out.Item as T | undefined;
    },
    /** A PutItem; false when its condition did not hold. */
    async put(input: Omit<PutCommandInput, "TableName">): Promise<boolean> {
      return (await unlessLost(client.send(new PutCommand({ ...input, TableName: name })))) !== undefined;
    },
    /** An UpdateItem: the item as it left it, or undefined when its condition did not hold. */
    async update<T>(input: Update): Promise<T | undefined> {
      const out = await unlessLost(client.send(new UpdateCommand({ ...input, TableName: name, ReturnValues: "ALL_NEW" })));
      return out?.Attributes as T | undefined;
    },
    /** Remove an attribute while it still holds `value` (a lease, a binding); false when it no longer does. */
    async clearIf(key: Key, attribute: string, value: unknown): Promise<boolean> {
      const out = await unlessLost(
        client.send(
          new UpdateCommand({
            TableName: name,
            Key: key,
            UpdateExpression: "REMOVE #a",
            ConditionExpression: "#a = :v",
            ExpressionAttributeNames: { "#a": attribute },
            ExpressionAttributeValues: { ":v": value },
          }),
        ),
      );
      return out !== undefined;
    },
    /** A DeleteItem; false when its condition did not hold. */
    async delete(input: Omit<DeleteCommandInput, "TableName">): Promise<boolean> {
      return (await unlessLost(client.send(new DeleteCommand({ ...input, TableName: name })))) !== undefined;
    },
    /** Every item a Query finds, page after page; with `max`, its first `max`. */
    async queryAll<T>(input: Omit<QueryCommandInput, "TableName" | "ExclusiveStartKey" | "Limit">, max = Number.POSITIVE_INFINITY): Promise<T[]> {
      const items: T[] = [];
      let start: Record<string, unknown> | undefined;
      do {
        const limit = Number.isFinite(max) ? { Limit: max - items.length } : {};
        const out = await client.send(new QueryCommand({ ...input, ...limit, TableName: name, ExclusiveStartKey: start }));
        items.push(...((out.Items ?? []) as T[]));
        start = out.LastEvaluatedKey;
      } while (start && items.length < max);
      return items;
    },
    /**
     * One page over the shards of an index (one Query each, side by side), merged in sort key order.
     * A shard with more to read was read only up to its last key, so the page ends at the nearest such
     * key: nothing past it is returned while a shard may still hold entries before it. `last` is
     * where the next page starts (every shard's `ExclusiveStartKey` at that sort key), if any.
     */
    async queryShards<T extends Record<string, unknown>>(queries: Omit<QueryCommandInput, "TableName">[], sortKey: string, limit: number): Promise<{ items: T[]; last?: string }> {
      const forward = queries[0]?.ScanIndexForward !== false;
      const pages = await Promise.all(queries.map((query) => queryPage<T>({ ...query, Limit: limit })));
      const inOrder = (a: string, b: string) => (forward ? a < b : a > b);
      const ends = pages.flatMap((page) => (page.lastKey ? [page.lastKey[sortKey] as string] : []));
      const end = ends.reduce<string | undefined>((nearest, key) => (nearest === undefined || inOrder(key, nearest) ? key : nearest), undefined);
      const merged = pages
        .flatMap((page) => page.items)
        .filter((item) => end === undefined || !inOrder(end, item[sortKey] as string))
        .sort((a, b) => (inOrder(a[sortKey] as string, b[sortKey] as string) ? -1 : 1));
      if (merged.length > limit) return { items: merged.slice(0, limit), last: merged[limit - 1][sortKey] as string };
      return { items: merged, last: end };
    },
    /**
     * The items of these keys, read consistently, 100 to a call (BatchGetItem's most), asking again after
     * a growing pause for what DynamoDB left unprocessed, as AWS advises.
     */
    async batchGet<T>(keys: Key[]): Promise<T[]> {
      const chunks = Array.from({ length: Math.ceil(keys.length / BATCH_GET_MAX) }, (_, i) => keys.slice(i * BATCH_GET_MAX, (i + 1) * BATCH_GET_MAX));
      const read = async (chunk: Key[]) => {
        const found: T[] = [];
        let requested: Record<string, unknown>[] = chunk;
        for (let attempt = 1; requested.length > 0; attempt++) {
          if (attempt > BATCH_GET_TRIES) throw new Error(`BatchGetItem left ${requested.length} keys unprocessed ${BATCH_GET_TRIES} times`);
          if (attempt > 1) await pauseBefore(attempt - 1);
          const out = await client.send(new BatchGetCommand({ RequestItems: { [name]: { Keys: requested, ConsistentRead: true } } }));
          found.push(...((out.Responses?.[name] ?? []) as T[]));
          requested = (out.UnprocessedKeys?.[name]?.Keys ?? []) as Record<string, unknown>[];
        }
        return found;
      };
      return (await Promise.all(chunks.map(read))).flat();
    },
    /**
     * One TransactWriteItems: undefined when it went through, else the writes whose condition did not
     * hold. Tried again after a growing random pause when it was cancelled for a reason that passes: a
     * concurrent transaction (a session's count is one item that every raise and verdict of the session
     * writes), or throttling.
     */
    async transact(writes: Write[]): Promise<LostConditions | undefined> {
      for (let attempt = 1; ; attempt++) {
        try {
          await client.send(new TransactWriteCommand({ TransactItems: writes }));
          return undefined;
        } catch (error) {
          const codes = cancellationCodes(error);
          if (codes.includes("ConditionalCheckFailed")) return new Set(codes.flatMap((code, i) => (code === "ConditionalCheckFailed" ? [i] : [])));
          if (!codes.some((code) => code !== undefined && passingReasons.has(code)) || attempt >= TRANSACTION_TRIES) throw error;
          await pauseBefore(attempt);
        }
      }
    },
  };
}
export type Table = ReturnType<typeof createTable>;
