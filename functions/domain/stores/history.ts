/**
 * The history: resolved elicitations in the tenant's sparse, time-ordered index (`history-by-tenant`,
 * sort key `resolved_at#elicitation_id`), newest first. One Query per index shard and page, merged;
 * the filters narrow what the page's items are, so a filtered page may hold fewer than its limit.
 */
import type { VerdictAction } from "../../shared/schemas.js";
import { mainTable } from "../../shared/tables.js";
import type { ElicitationItem } from "../items.js";
import { keys } from "./keys.js";
import type { Table } from "./table.js";

export interface HistoryFilter {
  /** Resolved at or after this ISO instant (UTC, as stored). */
  since?: string;
  /** Resolved before this ISO instant. */
  until?: string;
  session_id?: string;
  /** With `session_id`: its descendants' decisions too. */
  descendants?: boolean;
  resolved_by?: string;
  action?: VerdictAction;
}

const index = mainTable.indexes.history;

/** The sort key condition for the time window (`BETWEEN` includes both ends; `until` has no `#id`, so it stays out). */
function window(f: HistoryFilter): { condition: string; values: Record<string, string> } {
  if (f.since !== undefined && f.until !== undefined) return { condition: " AND history_sk BETWEEN :since AND :until", values: { ":since": f.since, ":until": f.until } };
  if (f.since !== undefined) return { condition: " AND history_sk >= :since", values: { ":since": f.since } };
  if (f.until !== undefined) return { condition: " AND history_sk < :until", values: { ":until": f.until } };
  return { condition: "", values: {} };
}

/** Past its retention an item is out of the history, whether or not TTL has removed it yet. */
function filters(f: HistoryFilter, nowSeconds: number) {
  const parts = ["(attribute_not_exists(expires_at) OR expires_at > :now)"];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ":now": nowSeconds };
  if (f.session_id !== undefined) {
    parts.push(f.descendants ? "(session_id = :session OR contains(ancestors, :session))" : "session_id = :session");
    values[":session"] = f.session_id;
  }
  if (f.resolved_by !== undefined) {
    parts.push("verdict.resolved_by = :by");
    values[":by"] = f.resolved_by;
  }
  if (f.action !== undefined) {
    parts.push("verdict.#action = :action");
    names["#action"] = "action";
    values[":action"] = f.action;
  }
  return { expression: parts.join(" AND "), names, values };
}

export function historyStore(table: Table) {
  return {
    /** One page, newest first, after the `history_sk` a cursor carries; `last` is where the next page starts, if any. */
    async page(tenant: string, f: HistoryFilter, o: { limit: number; after?: string; nowSeconds: number }) {
      const time = window(f);
      const filter = filters(f, o.nowSeconds);
      const afterId = o.after?.slice(o.after.indexOf("#") + 1);
      const { items, last } = await table.queryShards<ElicitationItem & Record<string, unknown>>(
        keys.indexShards(tenant).map((history_pk) => ({
          IndexName: index.name,
          KeyConditionExpression: `history_pk = :t${time.condition}`,
          FilterExpression: filter.expression,
          ExpressionAttributeNames: Object.keys(filter.names).length > 0 ? filter.names : undefined,
          ExpressionAttributeValues: { ":t": history_pk, ...time.values, ...filter.values },
          ScanIndexForward: false,
          ExclusiveStartKey: o.after && afterId ? { ...keys.elicitation(tenant, afterId), history_pk, history_sk: o.after } : undefined,
        })),
        "history_sk",
        o.limit,
      );
      return { items: items as ElicitationItem[], last };
    },
  };
}
export type HistoryStore = ReturnType<typeof historyStore>;
