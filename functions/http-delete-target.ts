/** `DELETE /v1/notification-targets/{id}`: no more deliveries to it (those scheduled find it gone). */
import { httpHandler } from "./lambda/http.js";
import { parse } from "./shared/parse.js";
import { Id } from "./shared/schemas.js";

export const handler = httpHandler(async ({ caller, path }, { tollgate }) => ({ body: await tollgate.targets.remove(caller, parse(Id, path.id, "target id")) }));
