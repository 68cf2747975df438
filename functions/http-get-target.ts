/** `GET /v1/notification-targets/{id}`: one target, with why it is disabled and its latest attempts. */
import { httpHandler } from "./lambda/http.js";
import { parse } from "./shared/parse.js";
import { Id } from "./shared/schemas.js";

export const handler = httpHandler(async ({ caller, path }, { tollgate }) => ({ body: await tollgate.targets.get(caller, parse(Id, path.id, "target id")) }));
