/** `GET /openapi.json`: anyone, no token. The document is generated once per cold start. */
import { openApiText } from "./shared/openapi.js";

let body: string | undefined;

export const handler = async () => ({ statusCode: 200, headers: { "content-type": "application/json" }, body: (body ??= openApiText()) });
