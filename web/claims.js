// @ts-check

/** @typedef {{sub?: string, role?: string, tenant?: string, exp?: number}} Claims */

/**
 * A JWT's claims, decoded without verification (the page only shows them; the server verifies).
 * Anything that is not a readable token gives no claims.
 * @param {string} token
 * @returns {Claims}
 */
export function decodeClaims(token) {
  try {
    const part = token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
    const claims = JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(part), (c) => c.charCodeAt(0))));
    return claims && typeof claims === "object" && !Array.isArray(claims) ? claims : {};
  } catch {
    return {};
  }
}
