/** `GET /v1/elicitations/{id}`: the standalone approval page's read, pending or resolved. */
import { httpHandler } from "./lambda/http.js";
import { parse } from "./shared/parse.js";
import { Id } from "./shared/schemas.js";

export const handler = httpHandler(async ({ caller, path }, { tollgate }) => ({ body: await tollgate.elicitations.read(caller, parse(Id, path.id, "elicitation id")) }));
