/** `POST /v1/sessions/{id}/messages`: delivered now, held behind a pending approval, or queued for the next hello. */
import { requireRole } from "./domain/access.js";
import { httpHandler } from "./lambda/http.js";
import { parse } from "./shared/parse.js";
import { Id, PostMessageBody } from "./shared/schemas.js";

export const handler = httpHandler(async ({ caller, path, body }, { tollgate }) => {
  requireRole(caller, "sendMessage");
  const sessionId = parse(Id, path.id, "session id");
  const message = parse(PostMessageBody, body);
  await tollgate.sessions.find(caller.tenant, sessionId);
  if (message.from_session_id) await tollgate.sessions.find(caller.tenant, message.from_session_id);
  const result = await tollgate.messages.send(caller.tenant, sessionId, { kind: "message", ...message });
  return { status: result.status === "held" ? 202 : 200, body: result };
});
