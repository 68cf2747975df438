/** `PUT /v1/notification-targets/{id}`: create (201, with the signing secret once) or change a notification target. */
import { httpHandler } from "./lambda/http.js";
import { PutTargetBody } from "./shared/notification-schemas.js";
import { parse } from "./shared/parse.js";
import { Id } from "./shared/schemas.js";

export const handler = httpHandler(async ({ caller, path, body }, { tollgate }) => {
  const { created, target } = await tollgate.targets.put(caller, parse(Id, path.id, "target id"), parse(PutTargetBody, body));
  return { status: created ? 201 : 200, body: target };
});
