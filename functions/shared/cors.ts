/**
 * The HTTP API's CORS rules (docs/protocol.md "HTTP API, more precisely"), one list for the cloud's
 * API Gateway and the local gateway. Tokens travel in `Authorization`, never in cookies: no credentials.
 */
import { NEXT_CURSOR_HEADER } from "./schemas.js";

export const cors = {
  allowMethods: ["GET", "PUT", "POST", "DELETE", "OPTIONS"],
  allowHeaders: ["authorization", "content-type"],
  /** Reply headers the contract names, which a browser hides from a page of another origin unless listed. */
  exposeHeaders: ["retry-after", NEXT_CURSOR_HEADER],
  maxAgeSeconds: 3_600,
} as const;
