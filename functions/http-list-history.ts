/** `GET /v1/history`: the tenant's decisions, newest first, as a JSON page or as JSON lines for an export. */
import { httpHandler } from "./lambda/http.js";
import { decodeCursor, encodeCursor } from "./shared/cursor.js";
import { parse } from "./shared/parse.js";
import { HistoryPosition, HistoryQuery, LIMITS, NEXT_CURSOR_HEADER } from "./shared/schemas.js";

const utc = (instant: string | undefined) => (instant === undefined ? undefined : new Date(instant).toISOString());

export const handler = httpHandler(async ({ caller, query }, { tollgate, signingKey }) => {
  const q = parse(HistoryQuery, query);
  const key = await signingKey();
  const after = q.cursor ? decodeCursor(key, caller.tenant, q.cursor, HistoryPosition) : undefined;
  const filter = { since: utc(q.since), until: utc(q.until), session_id: q.session_id, descendants: q.descendants === "true", resolved_by: q.resolved_by, action: q.action };
  const page = await tollgate.history.page(caller, filter, { limit: q.limit ?? LIMITS.listLimit.default, after });
  const next = page.last ? encodeCursor(key, caller.tenant, page.last) : null;
  if (q.format === "jsonl") {
    const headers: Record<string, string> = next ? { [NEXT_CURSOR_HEADER]: next } : {};
    return { body: page.entries, jsonl: true, headers };
  }
  return { body: { items: page.entries, next_cursor: next } };
});
