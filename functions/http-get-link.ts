/** `GET /v1/link`: the one elicitation an approval link names, as the standalone page shows it. */
import { linkHandler } from "./lambda/http.js";

export const handler = linkHandler(async ({ caller }, { tollgate }) => ({ body: await tollgate.links.read(caller) }));
