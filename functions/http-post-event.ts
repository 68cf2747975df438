/** `POST /v1/sessions/{id}/events`: raise an elicitation, give a verdict, or give up waiting. */
import { httpHandler } from "./lambda/http.js";
import { parse } from "./shared/parse.js";
import { Id, PostEventBody } from "./shared/schemas.js";

export const handler = httpHandler(async ({ caller, path, body }, { tollgate }) => {
  const sessionId = parse(Id, path.id, "session id");
  const event = parse(PostEventBody, body);
  switch (event.type) {
    case "response.elicitation_request": {
      const raised = await tollgate.elicitations.raise(caller, { ...event, session_id: sessionId });
      return { status: raised.created ? 201 : 200, body: { elicitation_id: raised.elicitation_id, deadline: raised.deadline } };
    }
    case "approval":
      return { body: await tollgate.elicitations.answer(caller, sessionId, event) };
    case "response.elicitation_resolved": {
      const { item } = await tollgate.elicitations.cancel(caller, event.elicitation_id, { session_id: sessionId });
      return { body: { elicitation_id: item.elicitation_id, status: item.status } };
    }
  }
});
