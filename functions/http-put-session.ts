/** `PUT /v1/sessions/{id}`: create or update a session. */
import { httpHandler } from "./lambda/http.js";
import { parse } from "./shared/parse.js";
import { Id, PutSessionBody } from "./shared/schemas.js";

export const handler = httpHandler(async ({ caller, path, body }, { tollgate }) => {
  const session = await tollgate.sessions.register(caller, { session_id: parse(Id, path.id, "session id"), ...parse(PutSessionBody, body) });
  return { body: await tollgate.sessions.summarize(session) };
});
