/** The options every command shares: where Tollgate is, the token, and the output form. */
import type { Command } from "commander";
import { usageError } from "./exit.js";

export interface Settings {
  url: string;
  wsUrl: string;
  token?: string;
  json: boolean;
}

/** The WebSocket API beside an HTTP API: the local runtime serves both on one port, at `/ws`. */
function wsUrlOf(httpUrl: string): string {
  const url = new URL(httpUrl);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  url.pathname = `${url.pathname.replace(/\/$/, "")}/ws`;
  return url.toString();
}

function checkedUrl(value: string, flag: string): string {
  try {
    const url = new URL(value);
    if (!/^(https?|wss?):$/.test(url.protocol)) throw new Error();
    return value.replace(/\/$/, "");
  } catch {
    throw usageError(`${flag} is not an http(s) or ws(s) URL: ${value}`);
  }
}

export function settingsOf(command: Command): Settings {
  const o = command.optsWithGlobals<{ url: string; wsUrl?: string; token?: string; json?: boolean }>();
  const url = checkedUrl(o.url, "--url");
  return { url, wsUrl: o.wsUrl ? checkedUrl(o.wsUrl, "--ws-url") : wsUrlOf(url), token: o.token || undefined, json: Boolean(o.json) };
}

export function tokenOf(settings: Settings): string {
  if (!settings.token) throw usageError("no token: pass --token or set TOLLGATE_TOKEN (`tollgate token` mints one for the local runtime)");
  return settings.token;
}

/** A flag's JSON value, which must be an object. */
export function jsonObject(value: string, flag: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw usageError(`${flag} is not valid JSON`);
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw usageError(`${flag} must be a JSON object`);
  return parsed as Record<string, unknown>;
}

/** A whole number in [min, max]. */
export function wholeNumber(value: string, flag: string, min: number, max: number): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) throw usageError(`${flag} takes a whole number from ${min} to ${max}`);
  return n;
}
