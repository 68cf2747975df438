/** The one error class of the runner client: `code` is a code of the wire protocol, or one of the client's own. */
export class TollgateError extends Error {
  constructor(
    /**
     * A protocol code (`bad_request`, `unauthorized`, `forbidden`, `not_found`, `conflict`,
     * `payload_too_large`, `rate_limited`, `internal_error`) or the client's own: `connection_lost`,
     * `closed`, `no_websocket`, `token_provider_failed`, `bad_reply`.
     */
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "TollgateError";
  }
}

export const connectionLost = (message = "connection lost") => new TollgateError("connection_lost", message);
