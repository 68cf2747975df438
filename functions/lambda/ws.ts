/**
 * The shape of every WebSocket route handler: the caller comes from the `$connect` authorizer's
 * context (API Gateway passes it to every route), the frame is parsed with its zod schema, and the
 * returned object goes back as the direct reply frame, with the client's `ref` echoed. A refusal
 * is an error frame; the connection stays open, unless the token it was opened with has expired
 * since (`exp`, carried in the authorizer's context): then the frame is refused `unauthorized`
 * and the connection closed, so a socket never acts for longer than its token.
 */
import type { APIGatewayProxyResultV2 } from "aws-lambda";
import * as z from "../shared/zod.js";
import type { Caller, Connection } from "../shared/caller.js";
import { servicesOf, type Services } from "./services.js";
import { ProtocolError, errorBody, failureSummary } from "../shared/errors.js";
import { logger } from "../shared/logger.js";
import { parse, parseJsonObject } from "../shared/parse.js";
import { Id, Role } from "../shared/schemas.js";

/** API Gateway's WebSocket frames are at most 128 KB. */
const FRAME_BYTES = 128 * 1024;

export interface WsEvent {
  body?: string | null;
  requestContext: { connectionId: string; connectedAt?: number; routeKey?: string; authorizer?: Record<string, unknown> | null };
}

export interface WsRequest<F> {
  caller: Caller;
  connection: Connection;
  frame: F;
}

const AuthorizerContext = z.object({ sub: z.string().check(z.minLength(1)), tenant: Id, role: Role });
/** API Gateway passes context values as strings, numbers or booleans: `exp` may come as either. */
const Expiry = z.object({ exp: z.optional(z.coerce.number()) });

export function callerOf(event: WsEvent): Caller {
  const parsed = AuthorizerContext.safeParse(event.requestContext.authorizer ?? {});
  if (!parsed.success) throw new ProtocolError("unauthorized", "connection has no verified identity");
  return parsed.data;
}

const reply = (frame: object, ref: unknown) => ({ statusCode: 200, body: JSON.stringify(ref === undefined ? frame : { ...frame, ref }) });

export function errorFrame(error: unknown, ref?: unknown): APIGatewayProxyResultV2 {
  if (!(error instanceof ProtocolError)) logger.error("unexpected failure", { error: failureSummary(error) });
  const body = error instanceof ProtocolError ? errorBody(error) : { code: "internal_error", message: "internal error" };
  return reply({ type: "error", ...body }, ref);
}

/** A `ref` is echoed only when it is a short string or a number. */
export function refOf(raw: Record<string, unknown>): unknown {
  const ref = raw.ref;
  return (typeof ref === "string" && ref.length <= 128) || typeof ref === "number" ? ref : undefined;
}

/** Whether the connection's token has expired by now (a connection without `exp` never does). */
function expired(event: WsEvent, now: number): boolean {
  const exp = Expiry.safeParse(event.requestContext.authorizer ?? {}).data?.exp;
  return exp !== undefined && now >= exp * 1000;
}

/** Refuse the frame with its own error frame, pushed before the connection is closed (a route reply would come after). */
async function hangUpExpired(services: Services, connectionId: string, ref: unknown): Promise<APIGatewayProxyResultV2> {
  const refusal = new ProtocolError("unauthorized", "token expired: connect again with a fresh token");
  await services.push.send(connectionId, { type: "error", ...errorBody(refusal), ...(ref === undefined ? {} : { ref }) });
  await services.hangUp(connectionId);
  return { statusCode: 200 };
}

export function wsHandler<S extends z.core.$ZodType>(schema: S, handle: (request: WsRequest<z.infer<S>>, services: Services) => Promise<object | undefined>) {
  return async (event: WsEvent, context?: unknown): Promise<APIGatewayProxyResultV2> => {
    let ref: unknown;
    try {
      if (Buffer.byteLength(event.body ?? "") > FRAME_BYTES) throw new ProtocolError("payload_too_large", "frame is larger than 128 KB");
      const raw = parseJsonObject(event.body, "frame");
      ref = refOf(raw);
      const caller = callerOf(event);
      const services = servicesOf(context);
      const { connectionId, connectedAt } = event.requestContext;
      if (expired(event, services.now())) return await hangUpExpired(services, connectionId, ref);
      const frame = await handle({ caller, connection: { id: connectionId, connectedAt: connectedAt ?? 0 }, frame: parse(schema, raw) }, services);
      return frame ? reply(frame, ref) : { statusCode: 200 };
    } catch (error) {
      return errorFrame(error, ref);
    }
  };
}
