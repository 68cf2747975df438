/** `POST /v1/link/verdict`: the verdict an approval link's holder gives its one elicitation. */
import { linkHandler } from "./lambda/http.js";
import { parse } from "./shared/parse.js";
import { LinkVerdictBody } from "./shared/schemas.js";

export const handler = linkHandler(async ({ caller, body }, { tollgate }) => ({ body: await tollgate.links.answer(caller, parse(LinkVerdictBody, body)) }));
