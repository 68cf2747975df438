/** `GET /v1/sessions/{id}/peek`: compact pending items for a parent agent. */
import { httpHandler } from "./lambda/http.js";
import { parse } from "./shared/parse.js";
import { Id } from "./shared/schemas.js";

export const handler = httpHandler(async ({ caller, path }, { tollgate }) => ({ body: await tollgate.sessions.peek(caller, parse(Id, path.id, "session id")) }));
