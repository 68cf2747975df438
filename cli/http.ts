/** The HTTP API, as the CLI calls it: a refusal or an unreachable server becomes a CliError. */
import { CliError, EXIT, unreachable } from "./exit.js";
import { tokenOf, type Settings } from "./settings.js";

export interface Refusal {
  code: string;
  message: string;
  verdict?: { action: string; message?: string; reason: string; resolved_by: string; resolved_at: string };
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

async function send(settings: Settings, method: string, path: string, body?: unknown): Promise<Response> {
  const token = tokenOf(settings);
  try {
    return await fetch(`${settings.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (error) {
    throw unreachable(settings.url, causeOf(error));
  }
}

/** A GET whose success is text (JSON lines), with its headers; a refusal is a `Refused` as with `call`. */
export async function callText(settings: Settings, path: string): Promise<{ text: string; headers: Headers }> {
  const response = await send(settings, "GET", path);
  if (!response.ok) throw refusalOf(response, await parsedBody(response, "GET", path, settings), settings);
  return { text: await response.text(), headers: response.headers };
}

async function parsedBody(response: Response, method: string, path: string, settings: Settings): Promise<unknown> {
  const text = await response.text();
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    throw new CliError(EXIT.refused, `${method} ${path} answered ${response.status} with a body that is not JSON: is ${settings.url} Tollgate's HTTP API?`);
  }
}

/** A refusal in the contract's words, else in API Gateway's own (a 404 for a path it has no route for, a 429 of its throttling). */
function refusalOf(response: Response, parsed: unknown, settings: Settings): Refused {
  const body = parsed as { error?: Refusal; message?: unknown } | undefined;
  if (body?.error) return new Refused(response.status, body.error);
  const said = typeof body?.message === "string" ? body.message : "no error body";
  const hint = response.status === 404 ? `: is ${settings.url} Tollgate's HTTP API?` : "";
  return new Refused(response.status, { code: `http_${response.status}`, message: `${said}${hint}` });
}

/** A call's success with its status (201 created, 200 changed, ...); a refusal is a `Refused`. */
export async function reply<T>(settings: Settings, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const response = await send(settings, method, path, body);
  const parsed = await parsedBody(response, method, path, settings);
  if (!response.ok) throw refusalOf(response, parsed, settings);
  return { status: response.status, body: parsed as T };
}

export const call = async <T>(settings: Settings, method: string, path: string, body?: unknown): Promise<T> => (await reply<T>(settings, method, path, body)).body;
