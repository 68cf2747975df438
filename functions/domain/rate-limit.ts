/**
 * Per-token rate limits on raises and verdicts (docs/security.md): a fixed one-minute window per
 * tenant, sub and operation, counted by one conditional `UpdateItem` that refuses to count past the
 * limit. A refused call writes nothing; the counter item expires through the table's TTL.
 */
import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { rateLimited } from "../shared/errors.js";
import type { Context } from "./context.js";
import { lostCondition } from "./db.js";
import type { Caller } from "./items.js";

export type RateLimitedOperation = "raise" | "verdict";

const WINDOW_MS = 60_000;
/** Counters outlive their window a little, so a late clock never finds a vanished one. */
const KEEP_SECONDS = 120;

/**
 * The counter of one window. The operation comes before the `sub` in the key: a `sub` is free
 * text from the token and could contain `#`, an operation cannot.
 */
export const rateKey = (tenant: string, operation: RateLimitedOperation, sub: string, windowStart: number) => ({
  pk: `T#${tenant}#RATE#${operation}#${sub}`,
  sk: new Date(windowStart).toISOString(),
});

export function createRateLimiter(ctx: Context) {
  const limitOf = (operation: RateLimitedOperation) =>
    operation === "raise" ? ctx.config.rateLimits.raisesPerMinute : ctx.config.rateLimits.verdictsPerMinute;

  return {
    /**
     * Count one call of `operation` by this caller, or refuse it with `rate_limited`. Call it after
     * every other check of the request and before its first write.
     */
    async take(caller: Caller, operation: RateLimitedOperation): Promise<void> {
      const limit = limitOf(operation);
      if (!limit) return;
      const now = ctx.now();
      const windowStart = Math.floor(now / WINDOW_MS) * WINDOW_MS;
      try {
        await ctx.db.send(
          new UpdateCommand({
            TableName: ctx.table,
            Key: rateKey(caller.tenant, operation, caller.sub, windowStart),
            UpdateExpression: "ADD n :one SET kind = :kind, expires_at = :ttl",
            ConditionExpression: "attribute_not_exists(n) OR n < :limit",
            ExpressionAttributeValues: {
              ":one": 1,
              ":limit": limit,
              ":kind": "rate",
              ":ttl": Math.floor((windowStart + WINDOW_MS) / 1000) + KEEP_SECONDS,
            },
          }),
        );
      } catch (error) {
        if (!lostCondition(error)) throw error;
        const retryAfter = Math.max(1, Math.ceil((windowStart + WINDOW_MS - now) / 1000));
        const what = operation === "raise" ? "elicitations" : "verdicts";
        throw rateLimited(`at most ${limit} ${what} per minute for this token; try again in ${retryAfter} s`, retryAfter);
      }
    },
  };
}
export type RateLimiter = ReturnType<typeof createRateLimiter>;
