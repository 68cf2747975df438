/** Small helpers over the DynamoDB document client that every domain module shares. */
import {
  DeleteCommand,
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
  type DeleteCommandInput,
  type DynamoDBDocumentClient,
  type TransactWriteCommandInput,
  type UpdateCommandInput,
} from "@aws-sdk/lib-dynamodb";

export type Key = { pk: string; sk: string };
export type TransactItem = NonNullable<TransactWriteCommandInput["TransactItems"]>[number];

/** The per-item reason codes of a cancelled transaction; none for any other error. */
function cancellationCodes(error: unknown): (string | undefined)[] {
  const e = error as { name?: string; CancellationReasons?: { Code?: string }[] };
  return e?.name === "TransactionCanceledException" ? (e.CancellationReasons ?? []).map((r) => r.Code) : [];
}

/** True when a write lost its condition, alone or inside a transaction. */
export function lostCondition(error: unknown): boolean {
  return (error as { name?: string })?.name === "ConditionalCheckFailedException" || cancellationCodes(error).includes("ConditionalCheckFailed");
}

/** True when the transaction was cancelled by the condition of its item at `index`. */
export function failedConditionAt(error: unknown, index: number): boolean {
  return cancellationCodes(error)[index] === "ConditionalCheckFailed";
}

/** Tries of a transaction that another one touching the same item cancelled (the AWS SDK does not retry those). */
const TRANSACTION_TRIES = 5;

/** True when a concurrent transaction on one of its items cancelled this one: trying again may succeed. */
function conflicted(error: unknown): boolean {
  const codes = cancellationCodes(error);
  return codes.includes("TransactionConflict") && !codes.includes("ConditionalCheckFailed");
}

/**
 * One TransactWriteItems, tried again after a short random pause when a concurrent transaction
 * conflicted with it (a session's count is one item that every raise and verdict of the session writes).
 */
export async function transactWrite(db: DynamoDBDocumentClient, items: TransactItem[]): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await db.send(new TransactWriteCommand({ TransactItems: items }));
      return;
    } catch (error) {
      if (!conflicted(error) || attempt >= TRANSACTION_TRIES) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * 2 ** attempt));
    }
  }
}

/** The outcome of a conditional write: what it returns, or undefined when its condition did not hold. */
async function unlessLost<T>(write: Promise<T>): Promise<T | undefined> {
  try {
    return await write;
  } catch (error) {
    if (lostCondition(error)) return undefined;
    throw error;
  }
}

export function tableOps(db: DynamoDBDocumentClient, table: string) {
  return {
    /** A conditional UpdateItem: the item as it left it, or undefined when its condition did not hold. */
    async updateIf<T = Record<string, unknown>>(input: Omit<UpdateCommandInput, "TableName" | "ReturnValues">): Promise<T | undefined> {
      const out = await unlessLost(db.send(new UpdateCommand({ ...input, TableName: table, ReturnValues: "ALL_NEW" })));
      return out?.Attributes as T | undefined;
    },
    /** A conditional UpdateItem: false when its condition did not hold. */
    async updated(input: Omit<UpdateCommandInput, "TableName" | "ReturnValues">): Promise<boolean> {
      return (await unlessLost(db.send(new UpdateCommand({ ...input, TableName: table })))) !== undefined;
    },
    /** A conditional DeleteItem: false when its condition did not hold. */
    async deleteIf(input: Omit<DeleteCommandInput, "TableName">): Promise<boolean> {
      return (await unlessLost(db.send(new DeleteCommand({ ...input, TableName: table })))) !== undefined;
    },
    async get<T>(key: Key): Promise<T | undefined> {
      const out = await db.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }));
      return out.Item as T | undefined;
    },
    /** Every row of a partition whose sort key starts with `prefix`, in key order. */
    async queryPrefix<T>(pk: string, prefix: string): Promise<T[]> {
      const items: T[] = [];
      let start: Record<string, unknown> | undefined;
      do {
        const out = await db.send(
          new QueryCommand({
            TableName: table,
            KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)",
            ExpressionAttributeValues: { ":pk": pk, ":prefix": prefix },
            ConsistentRead: true,
            ExclusiveStartKey: start,
          }),
        );
        items.push(...((out.Items ?? []) as T[]));
        start = out.LastEvaluatedKey;
      } while (start);
      return items;
    },
  };
}
export type TableOps = ReturnType<typeof tableOps>;
