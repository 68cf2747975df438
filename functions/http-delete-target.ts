/** `DELETE /v1/notification-targets/{id}`: no more deliveries to it (those scheduled find it gone). */
import { domain } from "./domain/clients.js";
import { httpHandler } from "./shared/http.js";
import { parse } from "./shared/parse.js";
import { Id } from "./shared/schemas.js";

export const handler = httpHandler(async ({ caller, path }) => ({ body: await domain().targets.remove(caller, parse(Id, path.id)) }));
