/** `GET /v1/notification-targets`: the tenant's notification targets. */
import { domain } from "./domain/clients.js";
import { httpHandler } from "./shared/http.js";

export const handler = httpHandler(async ({ caller }) => ({ body: await domain().targets.list(caller) }));
