/** `POST /v1/notification-targets/{id}/rotate`: a new signing secret, shown once. */
import { httpHandler } from "./lambda/http.js";
import { parse } from "./shared/parse.js";
import { Id } from "./shared/schemas.js";

export const handler = httpHandler(async ({ caller, path }, { tollgate }) => ({ body: await tollgate.targets.rotate(caller, parse(Id, path.id, "target id")) }));
