/** `GET /v1/sessions/{id}`: the session with its own and its descendants' pending prompts. */
import { domain } from "./domain/clients.js";
import { httpHandler } from "./shared/http.js";
import { parse } from "./shared/parse.js";
import { Id } from "./shared/schemas.js";

export const handler = httpHandler(async ({ caller, path }) => ({ body: await domain().sessions.snapshot(caller, parse(Id, path.id)) }));
