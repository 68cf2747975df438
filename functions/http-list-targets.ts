/** `GET /v1/notification-targets`: the tenant's notification targets. */
import { httpHandler } from "./lambda/http.js";

export const handler = httpHandler(async ({ caller }, { tollgate }) => ({ body: await tollgate.targets.list(caller) }));
