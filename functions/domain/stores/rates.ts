/** The rate counters: one item per token, operation and minute (docs/security.md). */
import { keys } from "./keys.js";
import type { Table, Write } from "./table.js";

export function rateStore(table: Table) {
  return {
    /** Count one call in its window: a transaction write whose condition refuses to count past `limit`. */
    count: (counter: { tenant: string; operation: string; sub: string; windowStart: number }, limit: number, expiresAt: number): Write => ({
      Update: {
        TableName: table.name,
        Key: keys.rate(counter.tenant, counter.operation, counter.sub, counter.windowStart),
        UpdateExpression: "ADD n :one SET kind = :kind, expires_at = :ttl",
        ConditionExpression: "attribute_not_exists(n) OR n < :limit",
        ExpressionAttributeValues: { ":one": 1, ":limit": limit, ":kind": "rate", ":ttl": expiresAt },
      },
    }),
  };
}
export type RateStore = ReturnType<typeof rateStore>;
