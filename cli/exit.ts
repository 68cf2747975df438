/** The CLI's exit codes (README "CLI"): stable, so scripts can branch on them. */
export const EXIT = {
  /** Accepted, or the command did what it was asked. */
  ok: 0,
  /** Tollgate refused the request (its error code is printed), or something else went wrong. */
  refused: 1,
  /** A bad flag, argument or JSON value. */
  usage: 2,
  declined: 3,
  timedOut: 4,
  /** Cancelled: by the asker (Ctrl-C), the run, or because its runner was gone too long. */
  cancelled: 5,
  unreachable: 6,
} as const;

/** A failure the CLI reports in one line and exits with. */
export class CliError extends Error {
  constructor(
    readonly exitCode: number,
    message: string,
  ) {
    super(message);
    this.name = "CliError";
  }
}

export const usageError = (message: string) => new CliError(EXIT.usage, message);
export const unreachable = (where: string, cause: string) => new CliError(EXIT.unreachable, `cannot reach Tollgate at ${where}: ${cause}`);
