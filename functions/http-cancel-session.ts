/** `POST /v1/sessions/{id}/cancel`: the run was cancelled; every pending elicitation resolves `cancel`. */
import { httpHandler } from "./lambda/http.js";
import { parse } from "./shared/parse.js";
import { CancelSessionBody, Id } from "./shared/schemas.js";

export const handler = httpHandler(async ({ caller, path, body }, { tollgate }) => {
  const { descendants } = parse(CancelSessionBody, body);
  return { body: await tollgate.runners.cancelSession(caller, parse(Id, path.id, "session id"), descendants ?? false) };
});
