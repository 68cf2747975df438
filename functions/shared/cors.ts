/**
 * The HTTP API's CORS rules (docs/protocol.md "HTTP API, more precisely"), one list for the cloud's
 * API Gateway and the local gateway. Tokens travel in `Authorization`, never in cookies: no credentials.
 */
export const cors = {
  allowMethods: ["GET", "PUT", "POST", "DELETE", "OPTIONS"],
  allowHeaders: ["authorization", "content-type"],
  maxAgeSeconds: 3_600,
} as const;
