/** `POST /v1/notification-targets/{id}/rotate`: a new signing secret, shown once. */
import { domain } from "./domain/clients.js";
import { httpHandler } from "./shared/http.js";
import { parse } from "./shared/parse.js";
import { Id } from "./shared/schemas.js";

export const handler = httpHandler(async ({ caller, path }) => ({ body: await domain().targets.rotate(caller, parse(Id, path.id)) }));
