// @ts-check
// Sign-in with the company's OpenID Connect issuer: the authorization code flow with PKCE, through
// oauth4webapi. The tokens live in sessionStorage only (gone with the tab), the access token is
// renewed with the refresh token a minute before it expires, and signing out forgets both.
import * as oauth from "oauth4webapi";
import { takeSetting } from "./settings.js";

const TOKENS = "tollgate.oidc.tokens";
const PENDING = "tollgate.oidc.pending";
const RENEW_BEFORE_MS = 60_000;
const RENEW_RETRY_MS = 5_000;

/** @typedef {{ access: string, refresh?: string, expiresAt: number }} Tokens */

/** The issuer the page signs in with: `?issuer=&client_id=` once (then kept), `&resource=` for the audience. */
export function issuerSettings() {
  return {
    issuer: takeSetting("issuer", "tollgate.issuer"),
    clientId: takeSetting("client_id", "tollgate.client_id"),
    resource: takeSetting("resource", "tollgate.resource"),
    scope: takeSetting("scope", "tollgate.scope") || "openid offline_access",
  };
}

export const signInConfigured = () => {
  const s = issuerSettings();
  return Boolean(s.issuer && s.clientId);
};

const session = {
  /** @param {string} k */
  get: (k) => {
    try {
      return JSON.parse(sessionStorage.getItem(k) ?? "null");
    } catch {
      return null;
    }
  },
  /** @param {string} k @param {unknown} v */
  set: (k, v) => sessionStorage.setItem(k, JSON.stringify(v)),
  /** @param {string} k */
  del: (k) => sessionStorage.removeItem(k),
};

/** Plain http only for an issuer on this machine (development and tests). @param {URL} url */
const insecureOk = (url) => url.protocol === "http:" && ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname);

/** @type {Promise<oauth.AuthorizationServer> | undefined} */
let server;
function authorizationServer() {
  const issuer = new URL(issuerSettings().issuer);
  server ??= oauth
    .discoveryRequest(issuer, { algorithm: "oidc", [oauth.allowInsecureRequests]: insecureOk(issuer) })
    .then((response) => oauth.processDiscoveryResponse(issuer, response))
    .catch((e) => {
      server = undefined; // a failed discovery is not kept: the next sign-in or renewal asks again
      throw e;
    });
  return server;
}

const client = () => ({ client_id: issuerSettings().clientId });
const redirectUri = () => `${location.origin}${location.pathname}`;
const requestOptions = () => ({ [oauth.allowInsecureRequests]: insecureOk(new URL(issuerSettings().issuer)) });

/** Sends the browser to the issuer's login page. */
export async function startSignIn() {
  const as = await authorizationServer();
  if (!as.authorization_endpoint) throw new Error("the issuer names no authorization endpoint");
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  session.set(PENDING, { verifier, state });
  const s = issuerSettings();
  const url = new URL(as.authorization_endpoint);
  url.search = new URLSearchParams({
    client_id: s.clientId,
    redirect_uri: redirectUri(),
    response_type: "code",
    scope: s.scope,
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    ...(s.scope.includes("offline_access") ? { prompt: "consent" } : {}),
    ...(s.resource ? { resource: s.resource } : {}),
  }).toString();
  location.assign(url.href);
}

/** @param {oauth.TokenEndpointResponse} response @param {string} [previousRefresh] */
function keep(response, previousRefresh) {
  /** @type {Tokens} */
  const tokens = {
    access: response.access_token,
    refresh: response.refresh_token ?? previousRefresh,
    expiresAt: Date.now() + (response.expires_in ?? 300) * 1000,
  };
  session.set(TOKENS, tokens);
  return tokens;
}

/** Why a sign-in failed, in the issuer's words where it gave some (`error_description`, else `error`). @param {unknown} e */
export function signInProblem(e) {
  const reply = /** @type {{ error_description?: string, error?: string, message?: string }} */ (e);
  return reply.error_description || reply.error || reply.message || String(e);
}

/**
 * Back from the issuer with `?code=&state=`, or `?error=` when it signed nobody in (refused,
 * cancelled): trades the code for tokens, or throws the issuer's error; cleans the address either way.
 */
export async function finishSignIn() {
  const url = new URL(location.href);
  const pending = session.get(PENDING);
  if (!pending || !(url.searchParams.has("code") || url.searchParams.has("error"))) return;
  session.del(PENDING);
  try {
    const as = await authorizationServer();
    const params = oauth.validateAuthResponse(as, client(), url, pending.state);
    const response = await oauth.authorizationCodeGrantRequest(as, client(), oauth.None(), params, redirectUri(), pending.verifier, requestOptions());
    keep(await oauth.processAuthorizationCodeResponse(as, client(), response));
  } finally {
    for (const name of ["code", "state", "iss", "session_state", "error", "error_description", "error_uri"]) url.searchParams.delete(name);
    history.replaceState(history.state, "", url.pathname + url.search + url.hash);
  }
}

/** The current access token from the issuer, or "" when signed out or expired. */
export function issuerToken() {
  /** @type {Tokens | null} */
  const tokens = session.get(TOKENS);
  return tokens && tokens.expiresAt > Date.now() ? tokens.access : "";
}

/** @type {ReturnType<typeof setTimeout> | undefined} */
let renewal;

/** Renews the access token before it expires, as long as the issuer gave a refresh token. @param {(token: string) => void} onToken */
export function keepFresh(onToken) {
  clearTimeout(renewal);
  /** @type {Tokens | null} */
  const tokens = session.get(TOKENS);
  const refresh = tokens?.refresh;
  if (!tokens || !refresh) return;
  renewal = setTimeout(() => void renew(refresh, onToken), Math.max(tokens.expiresAt - Date.now() - RENEW_BEFORE_MS, 1_000));
}

/**
 * One renewal. One the network loses (fetch's TypeError: a laptop waking before its network) goes
 * again shortly; one the issuer refuses ends renewing, and the expired token asks for a sign-in.
 * @param {string} refresh @param {(token: string) => void} onToken
 */
async function renew(refresh, onToken) {
  try {
    const as = await authorizationServer();
    const response = await oauth.refreshTokenGrantRequest(as, client(), oauth.None(), refresh, requestOptions());
    onToken(keep(await oauth.processRefreshTokenResponse(as, client(), response), refresh).access);
    keepFresh(onToken);
  } catch (e) {
    if (e instanceof TypeError) renewal = setTimeout(() => void renew(refresh, onToken), RENEW_RETRY_MS);
    else console.warn("tollgate: the issuer refused to renew the token", signInProblem(e));
  }
}

/** Forgets the tokens (the issuer's own session is the issuer's). */
export function forgetIssuerTokens() {
  clearTimeout(renewal);
  session.del(TOKENS);
  session.del(PENDING);
}
