/** The HTTP API, as the CLI calls it: a refusal or an unreachable server becomes a CliError. */
import { CliError, EXIT, unreachable } from "./exit.js";
import { tokenOf, type Settings } from "./settings.js";

export interface Refusal {
  code: string;
  message: string;
  verdict?: { action: string; reason: string; resolved_by: string; resolved_at: string };
}

export class Refused extends CliError {
  constructor(
    readonly status: number,
    readonly refusal: Refusal,
  ) {
    super(EXIT.refused, `${refusal.code}: ${refusal.message}`);
  }
}

/** Why fetch could not reach the server (`ECONNREFUSED`, `ENOTFOUND`, ...). */
const causeOf = (error: unknown) => {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
};

export async function call<T>(settings: Settings, method: string, path: string, body?: unknown): Promise<T> {
  const token = tokenOf(settings);
  let response: Response;
  try {
    response = await fetch(`${settings.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (error) {
    throw unreachable(settings.url, causeOf(error));
  }
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    throw new CliError(EXIT.refused, `${method} ${path} answered ${response.status} with a body that is not JSON: is ${settings.url} Tollgate's HTTP API?`);
  }
  if (!response.ok) {
    const refusal = (parsed as { error?: Refusal } | undefined)?.error ?? { code: `http_${response.status}`, message: "no error body" };
    throw new Refused(response.status, refusal);
  }
  return parsed as T;
}
