/** The error codes of docs/protocol.md "Errors" and their HTTP status. */
export const errorStatus = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  rate_limited: 429,
} as const;

export type ErrorCode = keyof typeof errorStatus;

/** A refusal the client caused: its code and message go back to the client as they are. */
export class ProtocolError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Extra fields for the error object, e.g. the standing `verdict` on a 409. */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "ProtocolError";
  }
}

export const badRequest = (message: string) => new ProtocolError("bad_request", message);
export const notFound = (what: string) => new ProtocolError("not_found", `${what} not found`);
export const forbidden = (message: string) => new ProtocolError("forbidden", message);

export const rateLimited = (message: string, retryAfterSeconds: number) => new ProtocolError("rate_limited", message, { retry_after_seconds: retryAfterSeconds });

/** Messages may quote the caller's own input (a zod issue names the key): never more than this. */
const MESSAGE_CHARS = 300;

/** The body of an error reply; never a stack trace or an internal name. */
export function errorBody(error: unknown): { code: ErrorCode; message: string } & Record<string, unknown> {
  if (error instanceof ProtocolError) {
    const message = error.message.length > MESSAGE_CHARS ? `${error.message.slice(0, MESSAGE_CHARS - 1)}…` : error.message;
    return { ...error.details, code: error.code, message };
  }
  return { code: "bad_request" as const, message: "request could not be processed" };
}

/** A JWT, quoted text, or a long number in an error message: what could be a token or a user's value. */
const SECRETS = [
  [/\beyJ[\w-]*\.[\w-]*\.?[\w-]*/g, "<token>"],
  [/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, "<text>"],
  [/-?\d[\d.eE+-]{3,}/g, "<number>"],
] as const;

/**
 * What the logs say of an unexpected failure: its name and the first line of its message, cut
 * short, with anything that could be a token, a quoted value or a long number masked. Never the
 * request, a token, a `content` value or a stack.
 */
export function failureSummary(error: unknown): { name: string; message: string } {
  const e = error as { name?: unknown; message?: unknown } | undefined;
  let message = typeof e?.message === "string" ? e.message.split("\n")[0] : "";
  for (const [pattern, mask] of SECRETS) message = message.replace(pattern, mask);
  return { name: typeof e?.name === "string" ? e.name.slice(0, 100) : typeof error, message: message.slice(0, 200) };
}
