/** `GET /v1/sessions/{id}`: the session with its own and its descendants' pending prompts. */
import { httpHandler } from "./lambda/http.js";
import { parse } from "./shared/parse.js";
import { Id } from "./shared/schemas.js";

export const handler = httpHandler(async ({ caller, path }, { tollgate }) => ({ body: await tollgate.sessions.snapshot(caller, parse(Id, path.id, "session id")) }));
