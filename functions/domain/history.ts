/** The history of decisions: what was asked, what was decided, by whom, how and how fast. */
import { badRequest, ProtocolError } from "../shared/errors.js";
import { requireRole } from "./access.js";
import type { Context } from "./context.js";
import { isResolved, paramsOf, shownVerdict, viaOf, type Caller, type Resolved } from "./items.js";
import type { HistoryFilter } from "./stores/history.js";

export type { HistoryFilter } from "./stores/history.js";

export function historyEntry(item: Resolved) {
  const { verdict } = item;
  return {
    elicitation_id: item.elicitation_id,
    session_id: item.session_id,
    params: paramsOf(item),
    created_at: item.created_at,
    deadline: item.deadline,
    verdict: { ...shownVerdict(verdict), via: viaOf(verdict) },
    decision_ms: Math.max(0, Date.parse(verdict.resolved_at) - Date.parse(item.created_at)),
  };
}
export type HistoryEntry = ReturnType<typeof historyEntry>;

export function createHistory(ctx: Context) {
  return {
    /** A page of the tenant's decisions, newest first; `last` is the position the next page starts after. */
    async page(caller: Caller, filter: HistoryFilter, options: { limit: number; after?: string }) {
      requireRole(caller, "read");
      if (!ctx.config.keepsHistory) throw new ProtocolError("not_found", "this deployment keeps no history");
      if (filter.since !== undefined && filter.until !== undefined && filter.since > filter.until) throw badRequest("since must not come after until");
      const { items, last } = await ctx.db.history.page(caller.tenant, filter, { ...options, nowSeconds: Math.floor(ctx.now() / 1000) });
      return { entries: items.filter(isResolved).map(historyEntry), last };
    },
  };
}
export type History = ReturnType<typeof createHistory>;
