/** `GET /v1/sessions`: a page of sessions, a batch by `ids`, or only those awaiting approval. */
import { decodeCursor, encodeCursor } from "./shared/cursor.js";
import { badRequest } from "./shared/errors.js";
import { httpHandler } from "./lambda/http.js";
import { parse } from "./shared/parse.js";
import { Id, LIMITS, ListSessionsQuery } from "./shared/schemas.js";

export const handler = httpHandler(async ({ caller, query }, { tollgate, signingKey }) => {
  const q = parse(ListSessionsQuery, query);
  if (q.ids !== undefined) {
    const ids = q.ids.split(",").filter(Boolean);
    if (ids.length === 0 || ids.length > LIMITS.idsPerLookup) throw badRequest(`ids takes 1 to ${LIMITS.idsPerLookup} ids`);
    return {
      body: {
        sessions: await tollgate.sessions.lookup(
          caller,
          ids.map((id) => parse(Id, id, "ids")),
        ),
        next_cursor: null,
      },
    };
  }
  const key = await signingKey();
  const after = q.cursor ? decodeCursor(key, caller.tenant, q.cursor) : undefined;
  const page = await tollgate.sessions.list(caller, { limit: q.limit ?? LIMITS.listLimit.default, after, pending: q.pending === "true" });
  return { body: { sessions: page.sessions, next_cursor: page.last ? encodeCursor(key, caller.tenant, page.last) : null } };
});
