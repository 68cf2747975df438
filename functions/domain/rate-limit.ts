/**
 * Per-token rate limits on raises and verdicts (docs/security.md): a fixed one-minute window per
 * tenant, sub and operation, counted by one conditional update that refuses to count past the
 * limit. The update goes out side by side with the call's first read, so it costs no round trip of
 * its own and stays out of the call's transaction (a transaction doubles the price of every item in
 * it): a call that a later check or its transaction refuses has still counted, a refused count writes
 * nothing. The counter item expires through the table's TTL.
 */
import { rateLimited, type ProtocolError } from "../shared/errors.js";
import type { Context } from "./context.js";
import type { Caller } from "./items.js";

export type RateLimitedOperation = "raise" | "verdict";

const WINDOW_MS = 60_000;
/** Counters outlive their window a little, so a late clock never finds a vanished one. */
const KEEP_SECONDS = 120;

export function createRateLimiter(ctx: Context) {
  const limitOf = (operation: RateLimitedOperation) => (operation === "raise" ? ctx.config.rateLimits.raisesPerMinute : ctx.config.rateLimits.verdictsPerMinute);

  return {
    /**
     * Count one call of `operation` by this caller: the refusal to give when the limit is reached (the
     * caller throws it after its own checks), else undefined; nothing is counted when that limit is off.
     */
    async count(caller: Caller, operation: RateLimitedOperation): Promise<ProtocolError | undefined> {
      const limit = limitOf(operation);
      if (!limit) return undefined;
      const now = ctx.now();
      const windowStart = Math.floor(now / WINDOW_MS) * WINDOW_MS;
      const counted = await ctx.db.rates.count({ tenant: caller.tenant, operation, sub: caller.sub, windowStart }, limit, Math.floor((windowStart + WINDOW_MS) / 1000) + KEEP_SECONDS);
      if (counted) return undefined;
      const retryAfter = Math.max(1, Math.ceil((windowStart + WINDOW_MS - now) / 1000));
      const what = operation === "raise" ? "elicitations" : "verdicts";
      return rateLimited(`at most ${limit} ${what} per minute for this token; try again in ${retryAfter} s`, retryAfter);
    },
  };
}
export type RateLimiter = ReturnType<typeof createRateLimiter>;
