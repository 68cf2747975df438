// @ts-check
// The HTTP API, called with the human's token.
import { endpoints } from "./settings.js";
import { currentToken, signOut } from "./signin.js";

/** @typedef {import("./types").Verdict} Verdict */
/** @typedef {import("./types").SessionItem} SessionItem */

export class ApiError extends Error {
  /** @param {number} status @param {{code?: string, message?: string, verdict?: Verdict} | undefined} error */
  constructor(status, error) {
    super(error?.message || `Request failed (HTTP ${status})`);
    this.status = status;
    this.code = error?.code;
    this.verdict = error?.verdict;
  }
}

/** A path segment: ids are plain by protocol, anything else gets encoded. */
export const seg = (/** @type {string} */ id) => (/^[A-Za-z0-9_.:-]+$/.test(id) ? id : encodeURIComponent(id));

/**
 * Calls the API with the bearer token; throws ApiError with the server's message.
 * A refused token signs the human out.
 * @param {string} path
 * @param {{method?: string, body?: unknown}} [init]
 * @returns {Promise<any>} the reply's JSON
 */
export async function api(path, { method = "GET", body } = {}) {
  /** @type {Record<string, string>} */
  const headers = { authorization: `Bearer ${currentToken()}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  let res;
  try {
    res = await fetch(`${endpoints().api}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(0, { code: "network", message: "Cannot reach Tollgate. Check your connection." });
  }
  const data = await res.json().catch(() => null);
  if (!res.ok) {
    const err = new ApiError(res.status, data?.error);
    if (res.status === 401) signOut(`Your token was refused: ${err.message}`);
    throw err;
  }
  return data;
}

/**
 * Session items for these ids (unknown ids come back with a zero count).
 * @param {string[]} ids
 * @returns {Promise<SessionItem[]>}
 */
export async function sessionsByIds(ids) {
  const out = [];
  for (let i = 0; i < ids.length; i += 100) {
    const q = new URLSearchParams({ ids: ids.slice(i, i + 100).join(",") });
    out.push(...(await api(`/v1/sessions?${q}`)).sessions);
  }
  return out;
}
