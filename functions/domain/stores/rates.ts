/** The rate counters: one item per token, operation and minute (docs/security.md). */
import { keys } from "./keys.js";
import type { Table } from "./table.js";

export function rateStore(table: Table) {
  return {
    /** Count one call in its window; false (and nothing written) when the window already holds `limit`. */
    count: async (counter: { tenant: string; operation: string; sub: string; windowStart: number }, limit: number, expiresAt: number): Promise<boolean> =>
      (await table.update({
        Key: keys.rate(counter.tenant, counter.operation, counter.sub, counter.windowStart),
        UpdateExpression: "ADD n :one SET kind = :kind, expires_at = :ttl",
        ConditionExpression: "attribute_not_exists(n) OR n < :limit",
        ExpressionAttributeValues: { ":one": 1, ":limit": limit, ":kind": "rate", ":ttl": expiresAt },
      })) !== undefined,
  };
}
export type RateStore = ReturnType<typeof rateStore>;
