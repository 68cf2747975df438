/** `POST /v1/elicitations/{id}/link`: an approval link for this pending elicitation, to share by hand. */
import { httpHandler } from "./lambda/http.js";
import { parse } from "./shared/parse.js";
import { Id, ShareLinkBody } from "./shared/schemas.js";

export const handler = httpHandler(async ({ caller, path, body }, { tollgate }) => {
  const elicitationId = parse(Id, path.id, "elicitation id");
  const { for: forWhom } = parse(ShareLinkBody, body);
  return { status: 201, body: await tollgate.links.share(caller, elicitationId, forWhom) };
});
