/** `GET /v1/notification-targets/{id}`: one target, with why it is disabled and its latest attempts. */
import { domain } from "./domain/clients.js";
import { httpHandler } from "./shared/http.js";
import { parse } from "./shared/parse.js";
import { Id } from "./shared/schemas.js";

export const handler = httpHandler(async ({ caller, path }) => ({ body: await domain().targets.get(caller, parse(Id, path.id)) }));
