/** PROTOCOL.md's error codes and their HTTP status. */
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

/** The body of an error reply; never a stack trace or an internal name. */
export function errorBody(error: unknown): { code: ErrorCode; message: string } & Record<string, unknown> {
  if (error instanceof ProtocolError) return { code: error.code, message: error.message, ...error.details };
  return { code: "bad_request" as const, message: "request could not be processed" };
}
