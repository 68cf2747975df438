/**
 * Tokens of OpenID Connect issuers (docs/protocol.md "Authentication and tenants"). Each configured
 * issuer names its audience, its algorithms and how its claims map to Tollgate's `sub`, `tenant`
 * and `role`. Keys come from the issuer's discovery document and JWKS, cached, fetched again on an
 * unknown `kid` (at most once per cooldown); an issuer whose keys cannot be had fails closed.
 */
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from "jose";
import * as z from "./zod.js";
import { ProtocolError } from "./errors.js";
import { logger } from "./logger.js";
import { Id, Role, type Claims } from "./schemas.js";

/** Asymmetric only: an issuer's public keys must never serve as an HMAC secret. */
const Algorithm = z.enum(["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"]);

/** One claim name, or several whose values are pooled (Cognito: people's `cognito:groups`, machines' `scope`). */
const Name = z.string().check(z.minLength(1));
const ClaimNames = z.union([Name, z.array(Name).check(z.minLength(1), z.maxLength(5))]);
const RoleMapping = z.union([
  z.strictObject({ value: Role }),
  /** The claim holds a role name, or (with `map`) values such as groups or scopes; the first entry of `map` the claims hold wins. */
  z.strictObject({ claim: ClaimNames, map: z.optional(z.record(z.string(), Role)) }),
]);

export const IssuerConfig = z.strictObject({
  issuer: z.url(),
  audience: z.union([Name, z.array(Name).check(z.minLength(1))]),
  /** Pinned; absent: the asymmetric algorithms of the discovery document's `id_token_signing_alg_values_supported`. */
  algorithms: z.optional(z.array(Algorithm).check(z.minLength(1))),
  /** Where the keys are, instead of the discovery document's `jwks_uri`; with `algorithms` too, discovery is skipped. */
  jwks_uri: z.optional(z.url()),
  tenant: z.union([z.strictObject({ value: Id }), z.strictObject({ claim: Name })]),
  role: RoleMapping,
  sub_claim: z._default(Name, "sub"),
  /** The claim that must name the audience: `aud` (default), or `client_id` for access tokens that carry no `aud` (Cognito's). */
  audience_claim: z._default(z.enum(["aud", "client_id"]), "aud"),
  clock_tolerance_seconds: z._default(z.int().check(z.minimum(0), z.maximum(300)), 30),
  /** How soon an unknown `kid` may fetch the JWKS again. */
  jwks_cooldown_seconds: z._default(z.number().check(z.minimum(0), z.maximum(3_600)), 30),
  timeout_ms: z._default(z.int().check(z.minimum(100), z.maximum(30_000)), 5_000),
});
export type IssuerConfig = z.infer<typeof IssuerConfig>;
export const IssuerConfigs = z.array(IssuerConfig).check(z.maxLength(10));

/** Parses `TOLLGATE_OIDC_ISSUERS` (a JSON array); a malformed one stops the function at start, loudly. */
export function parseIssuers(raw: string | undefined): IssuerConfig[] {
  if (!raw?.trim()) return [];
  const parsed = IssuerConfigs.safeParse(JSON.parse(raw));
  if (!parsed.success) throw new Error(`TOLLGATE_OIDC_ISSUERS is not valid: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

const unauthorized = () => new ProtocolError("unauthorized", "missing, invalid or expired token");
const forbidden = (what: string) => new ProtocolError("forbidden", `the token's identity has no Tollgate ${what}`);

type Keys = ReturnType<typeof createRemoteJWKSet>;
interface Verifier {
  config: IssuerConfig;
  keys?: Promise<{ keys: Keys; algorithms: string[] }>;
  lastOutageLog: number;
}

const OUTAGE_LOG_INTERVAL_MS = 60_000;

/** An issuer that cannot be reached is said once a minute, not once per request. */
function logOutage(verifier: Verifier, error: unknown): void {
  const now = Date.now();
  if (now - verifier.lastOutageLog < OUTAGE_LOG_INTERVAL_MS) return;
  verifier.lastOutageLog = now;
  logger.error("OpenID issuer keys unreachable: its tokens are refused", { issuer: verifier.config.issuer, error: error instanceof Error ? error.message : String(error) });
}

/** An issuer identifier without its trailing slash: some issuers end theirs in `/`, others not, and a configuration may write either. */
const bare = (issuer: string) => issuer.replace(/\/$/, "");

async function discover(config: IssuerConfig): Promise<{ jwks_uri: string; algorithms: string[] }> {
  const url = `${bare(config.issuer)}/.well-known/openid-configuration`;
  const response = await fetch(url, { signal: AbortSignal.timeout(config.timeout_ms) });
  if (!response.ok) throw new Error(`discovery answered ${response.status}`);
  const document = z.object({ issuer: z.string(), jwks_uri: z.url(), id_token_signing_alg_values_supported: z.optional(z.array(z.string())) }).parse(await response.json());
  if (bare(document.issuer) !== bare(config.issuer)) throw new Error(`discovery names issuer ${document.issuer}`);
  const offered = (document.id_token_signing_alg_values_supported ?? ["RS256"]).filter((alg) => Algorithm.safeParse(alg).success);
  return { jwks_uri: config.jwks_uri ?? document.jwks_uri, algorithms: config.algorithms ?? offered };
}

function keysOf(verifier: Verifier): Promise<{ keys: Keys; algorithms: string[] }> {
  const { config } = verifier;
  verifier.keys ??= (config.jwks_uri && config.algorithms ? Promise.resolve({ jwks_uri: config.jwks_uri, algorithms: config.algorithms }) : discover(config))
    .then(({ jwks_uri, algorithms }) => ({
      keys: createRemoteJWKSet(new URL(jwks_uri), { timeoutDuration: config.timeout_ms, cooldownDuration: config.jwks_cooldown_seconds * 1000 }),
      algorithms,
    }))
    .catch((error) => {
      verifier.keys = undefined;
      throw error;
    });
  return verifier.keys;
}

/** Errors that mean "we could not get keys", as opposed to "this token is bad". */
const isOutage = (error: unknown) =>
  error instanceof Error &&
  (["ERR_JWKS_TIMEOUT", "ERR_JWKS_INVALID"].includes((error as { code?: string }).code ?? "") || error.name === "TypeError" || error.name === "TimeoutError" || /discovery|fetch/i.test(error.message));

/** The string values of the named claims: list claims as they are, a string claim split on spaces (as `scope` is). */
function claimValues(payload: JWTPayload, names: string | string[]): string[] {
  return [names].flat().flatMap((name) => {
    const held = payload[name];
    if (typeof held === "string") return held.split(/\s+/).filter(Boolean);
    return Array.isArray(held) ? held.filter((v): v is string => typeof v === "string") : [];
  });
}

function roleOf(payload: JWTPayload, mapping: IssuerConfig["role"]): Claims["role"] | undefined {
  if ("value" in mapping) return mapping.value;
  const values = claimValues(payload, mapping.claim);
  if (!mapping.map) return values.map((v) => Role.safeParse(v)).find((r) => r.success)?.data;
  return Object.entries(mapping.map).find(([value]) => values.includes(value))?.[1];
}

function claimsOf(payload: JWTPayload, config: IssuerConfig): Claims {
  const sub = payload[config.sub_claim];
  if (typeof sub !== "string" || sub.length === 0 || sub.length > 256) throw unauthorized();
  const tenant = "value" in config.tenant ? config.tenant.value : payload[config.tenant.claim];
  if (!Id.safeParse(tenant).success) throw forbidden("tenant");
  const role = roleOf(payload, config.role);
  if (!role) throw forbidden("role");
  return { sub, tenant: tenant as string, role, exp: payload.exp! };
}

export function createIssuerVerifier(configs: IssuerConfig[]) {
  const verifiers = new Map(configs.map((config) => [bare(config.issuer), { config, lastOutageLog: -Infinity } as Verifier]));
  return {
    /** Whether `iss` names a configured issuer (a trailing slash aside). */
    handles: (iss: unknown): boolean => typeof iss === "string" && verifiers.has(bare(iss)),
    async verify(token: string, iss: string): Promise<Claims> {
      const verifier = verifiers.get(bare(iss))!;
      const { config } = verifier;
      let payload: JWTPayload;
      try {
        const { keys, algorithms } = await keysOf(verifier);
        ({ payload } = await jwtVerify(token, keys, {
          issuer: [bare(config.issuer), `${bare(config.issuer)}/`],
          ...(config.audience_claim === "aud" ? { audience: config.audience } : {}),
          algorithms,
          requiredClaims: ["exp"],
          clockTolerance: config.clock_tolerance_seconds,
        }));
      } catch (error) {
        if (isOutage(error)) logOutage(verifier, error);
        throw unauthorized();
      }
      if (config.audience_claim === "client_id" && ![config.audience].flat().includes(payload.client_id as string)) throw unauthorized();
      return claimsOf(payload, config);
    },
  };
}
export type IssuerVerifier = ReturnType<typeof createIssuerVerifier>;
