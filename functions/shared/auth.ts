/**
 * Bearer token verification (docs/protocol.md "Authentication and tenants"): Tollgate's own HS256
 * tokens (`exp` and `nbf` checked, `sub`, `tenant` and `role` required; secret from Secrets Manager
 * in the cloud, TOLLGATE_JWT_SECRET locally) and tokens of the configured OpenID issuers (oidc.ts).
 */
import { GetSecretValueCommand, SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { decodeJwt, jwtVerify } from "jose";
import { env } from "./env.js";
import { ProtocolError } from "./errors.js";
import { createIssuerVerifier, parseIssuers, type IssuerVerifier } from "./oidc.js";
import { Claims } from "./schemas.js";

let secret: Promise<Uint8Array> | undefined;

async function loadSecret(): Promise<Uint8Array> {
  const arn = process.env[env.jwtSecretArn];
  const value = arn ? (await new SecretsManagerClient({}).send(new GetSecretValueCommand({ SecretId: arn }))).SecretString : process.env[env.jwtSecret];
  if (!value) throw new Error("no JWT secret configured");
  return new TextEncoder().encode(value);
}

const unauthorized = () => new ProtocolError("unauthorized", "missing, invalid or expired token");

/** The token secret, loaded once; it also signs pagination cursors. */
export function signingKey(): Promise<Uint8Array> {
  secret ??= loadSecret().catch((error) => {
    secret = undefined;
    throw error;
  });
  return secret;
}

/** Longer than any token Tollgate's claims need: refused before any parsing. */
const MAX_TOKEN_CHARS = 8_192;

let issuers: { raw: string | undefined; verifier: IssuerVerifier } | undefined;

/** The configured OpenID issuers (TOLLGATE_OIDC_ISSUERS' JSON), parsed once per configuration. */
function issuerVerifier(raw: string | undefined): IssuerVerifier {
  if (!issuers || issuers.raw !== raw) issuers = { raw, verifier: createIssuerVerifier(parseIssuers(raw)) };
  return issuers.verifier;
}

/** The unverified `iss` of a token, to pick its verifier; undefined when it has none or is no JWT. */
function issuerOf(token: string): unknown {
  try {
    return decodeJwt(token).iss;
  } catch {
    return undefined;
  }
}

/**
 * The claims of a valid token, or `unauthorized` (`forbidden` when a configured issuer's token maps
 * to no tenant or role). A token whose `iss` is a configured OpenID issuer is verified with that
 * issuer's keys; any other must be Tollgate's own HS256 token. The algorithm is pinned to HS256: `alg: none`,
 * another HMAC, or an asymmetric algorithm (key confusion) never verifies. `exp` is required and
 * checked (against `now`), `nbf` is checked when present, and `sub`, `tenant` and `role` must be there and valid.
 */
export async function verifyToken(token: string | undefined, key: Uint8Array, now: number, oidcIssuers: string | undefined): Promise<Claims> {
  if (!token || token.length > MAX_TOKEN_CHARS) throw unauthorized();
  const iss = issuerOf(token);
  const oidc = issuerVerifier(oidcIssuers);
  if (oidc.handles(iss)) return oidc.verify(token, iss as string);
  try {
    const { payload } = await jwtVerify(token, key, { algorithms: ["HS256"], requiredClaims: ["exp", "sub", "tenant", "role"], currentDate: new Date(now) });
    return Claims.parse(payload);
  } catch {
    throw unauthorized();
  }
}

/** The token of a request: `Authorization: Bearer <jwt>`, or `?token=` for browser WebSockets. */
export function bearerToken(headers: Record<string, string | undefined> | null | undefined, query?: Record<string, string | undefined> | null): string | undefined {
  const header = Object.entries(headers ?? {}).find(([name]) => name.toLowerCase() === "authorization")?.[1];
  const match = header?.match(/^Bearer\s+(\S+)$/i);
  return match?.[1] ?? query?.token ?? undefined;
}
