/** Small helpers over the DynamoDB document client that every domain module shares. */
import { GetCommand, QueryCommand, type DynamoDBDocumentClient, type TransactWriteCommandInput } from "@aws-sdk/lib-dynamodb";

export type Key = { pk: string; sk: string };
export type TransactItem = NonNullable<TransactWriteCommandInput["TransactItems"]>[number];

/** True when a write lost its condition, alone or inside a transaction. */
export function lostCondition(error: unknown): boolean {
  const e = error as { name?: string; CancellationReasons?: { Code?: string }[] };
  if (e?.name === "ConditionalCheckFailedException") return true;
  return e?.name === "TransactionCanceledException" && (e.CancellationReasons ?? []).some((r) => r.Code === "ConditionalCheckFailed");
}

/** True when the transaction was cancelled by the condition of its item at `index`. */
export function failedConditionAt(error: unknown, index: number): boolean {
  const e = error as { name?: string; CancellationReasons?: { Code?: string }[] };
  return e?.name === "TransactionCanceledException" && e.CancellationReasons?.[index]?.Code === "ConditionalCheckFailed";
}

export function tableOps(db: DynamoDBDocumentClient, table: string) {
  return {
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
