/**
 * The shape of every HTTP API handler (payload format 2.0): authenticate, parse, call the domain,
 * shape the reply. Errors become `{"error":{"code","message"}}` (docs/protocol.md "Errors"); nothing internal leaks.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import type { Caller } from "../shared/caller.js";
import { bearerToken } from "../shared/auth.js";
import type { LinkGrant } from "../shared/links.js";
import { servicesOf, type Services } from "./services.js";
import { ProtocolError, errorBody, errorStatus, failureSummary } from "../shared/errors.js";
import { logger } from "../shared/logger.js";
import { parseJsonObject } from "../shared/parse.js";
import { LIMITS } from "../shared/schemas.js";

export interface HttpRequest<Who = Caller> {
  /** Who calls: a bearer token's identity, or an approval link's grant (`linkHandler`). */
  caller: Who;
  path: Record<string, string | undefined>;
  query: Record<string, string | undefined>;
  /** The parsed JSON body: `{}` when there is none. */
  body: Record<string, unknown>;
}

export interface HttpReply {
  status?: number;
  /** A JSON reply, or `jsonl`: one JSON value per line (`application/x-ndjson`), an export's page. */
  body: unknown;
  jsonl?: true;
  headers?: Record<string, string>;
}

const json = (statusCode: number, body: unknown, headers: Record<string, string> = {}): APIGatewayProxyStructuredResultV2 => ({
  statusCode,
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify(body),
});

const jsonLines = (statusCode: number, lines: unknown[], headers: Record<string, string> = {}): APIGatewayProxyStructuredResultV2 => ({
  statusCode,
  headers: { "content-type": "application/x-ndjson", ...headers },
  body: lines.map((line) => `${JSON.stringify(line)}\n`).join(""),
});

function readBody(event: APIGatewayProxyEventV2): Record<string, unknown> {
  if (!event.body) return {};
  const text = event.isBase64Encoded ? Buffer.from(event.body, "base64").toString("utf8") : event.body;
  if (Buffer.byteLength(text) > LIMITS.bodyBytes) throw new ProtocolError("payload_too_large", "request body is larger than 64 KiB");
  return parseJsonObject(text, "request body");
}

export function errorReply(error: unknown): APIGatewayProxyStructuredResultV2 {
  if (error instanceof ProtocolError) {
    const retryAfter = error.details.retry_after_seconds;
    return json(errorStatus[error.code], { error: errorBody(error) }, typeof retryAfter === "number" ? { "retry-after": String(retryAfter) } : {});
  }
  logger.error("unexpected failure", { error: failureSummary(error) });
  return json(500, { error: { code: "internal_error", message: "internal error" } });
}

/** A handler whose caller `identify` makes of the request's bearer credential. */
function handlerOf<Who>(identify: (services: Services, credential: string | undefined) => Promise<Who>) {
  return (handle: (request: HttpRequest<Who>, services: Services) => Promise<HttpReply>) =>
    async (event: APIGatewayProxyEventV2, context?: unknown): Promise<APIGatewayProxyStructuredResultV2> => {
      try {
        const services = servicesOf(context);
        const caller = await identify(services, bearerToken(event.headers));
        const reply = await handle({ caller, path: event.pathParameters ?? {}, query: event.queryStringParameters ?? {}, body: readBody(event) }, services);
        if (reply.jsonl) return jsonLines(reply.status ?? 200, reply.body as unknown[], reply.headers);
        return json(reply.status ?? 200, reply.body, reply.headers);
      } catch (error) {
        return errorReply(error);
      }
    };
}

/** A route for a token's holder: `Authorization: Bearer <token>`. */
export const httpHandler = handlerOf<Caller>(async (services, token) => {
  const claims = await services.verify(token);
  return { sub: claims.sub, tenant: claims.tenant, role: claims.role };
});

/** A route for an approval link's holder: `Authorization: Bearer <link>`; no token is accepted here. */
export const linkHandler = handlerOf<LinkGrant>((services, link) => services.verifyLink(link));
