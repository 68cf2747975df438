/**
 * Per-token rate limits on raises and verdicts (docs/security.md): a fixed one-minute window per
 * tenant, sub and operation, counted by one conditional update that refuses to count past the
 * limit. The update is one more item of the call's own transaction, so a refused call writes
 * nothing, a call refused for any other reason counts nothing, and the count costs no extra round
 * trip. The counter item expires through the table's TTL.
 */
import { rateLimited, type ProtocolError } from "../shared/errors.js";
import type { Context } from "./context.js";
import type { Caller } from "./items.js";
import type { LostConditions, Write } from "./stores/index.js";

export type RateLimitedOperation = "raise" | "verdict";

const WINDOW_MS = 60_000;
/** Counters outlive their window a little, so a late clock never finds a vanished one. */
const KEEP_SECONDS = 120;

/** One call's count: a transaction item, and the refusal to give when its condition cancelled the transaction. */
export interface RateCharge {
  readonly write: Write;
  /** `rate_limited` if this charge, at `index` in the transaction, is what cancelled it. */
  refusal(lost: LostConditions, index: number): ProtocolError | undefined;
}

export function createRateLimiter(ctx: Context) {
  const limitOf = (operation: RateLimitedOperation) => (operation === "raise" ? ctx.config.rateLimits.raisesPerMinute : ctx.config.rateLimits.verdictsPerMinute);

  return {
    /** The count of one call of `operation` by this caller; undefined when that limit is off. */
    charge(caller: Caller, operation: RateLimitedOperation): RateCharge | undefined {
      const limit = limitOf(operation);
      if (!limit) return undefined;
      const now = ctx.now();
      const windowStart = Math.floor(now / WINDOW_MS) * WINDOW_MS;
      return {
        write: ctx.db.rates.count({ tenant: caller.tenant, operation, sub: caller.sub, windowStart }, limit, Math.floor((windowStart + WINDOW_MS) / 1000) + KEEP_SECONDS),
        refusal(lost, index) {
          if (!lost.has(index)) return undefined;
          const retryAfter = Math.max(1, Math.ceil((windowStart + WINDOW_MS - now) / 1000));
          const what = operation === "raise" ? "elicitations" : "verdicts";
          return rateLimited(`at most ${limit} ${what} per minute for this token; try again in ${retryAfter} s`, retryAfter);
        },
      };
    },
  };
}
export type RateLimiter = ReturnType<typeof createRateLimiter>;
