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
 * Calls the API with this bearer credential (a token, or an approval link); throws ApiError with the server's message.
 * @param {string} path
 * @param {string} credential
 * @param {{method?: string, body?: unknown}} [init]
 * @returns {Promise<any>} the reply's JSON
 */
export async function call(path, credential, { method = "GET", body } = {}) {
  /** @type {Record<string, string>} */
  const headers = { authorization: `Bearer ${credential}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  let res;
  try {
    res = await fetch(`${endpoints().api}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(0, { code: "network", message: "Cannot reach Tollgate. Check your connection." });
  }
  const data = await res.json().catch(() => null);
  if (!res.ok) throw new ApiError(res.status, data?.error);
  return data;
}

/**
 * Calls the API with the human's token; a refused token signs the human out.
 * @param {string} path
 * @param {{method?: string, body?: unknown}} [init]
 * @returns {Promise<any>} the reply's JSON
 */
export async function api(path, init) {
  try {
    return await call(path, currentToken(), init);
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) signOut(`Your token was refused: ${err.message}`);
    throw err;
  }
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
