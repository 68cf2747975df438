/** Development tokens for the local runtime (HS256 with TOLLGATE_JWT_SECRET). */
import { SignJWT } from "jose";
import type { Role } from "../functions/shared/schemas.js";

/** The secret `npm start` and `tollgate token` use when TOLLGATE_JWT_SECRET is not set: for development only. */
export const DEV_SECRET = "tollgate-local-development-secret";

/** A token valid for `ttlSeconds` from `now` (milliseconds since the epoch; a test passes its runtime's clock). */
export function mintToken(secret: string, claims: { sub: string; tenant: string; role: Role }, ttlSeconds = 30 * 86_400, now = Date.now()): Promise<string> {
  return new SignJWT({ tenant: claims.tenant, role: claims.role })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(claims.sub)
    .setIssuedAt(Math.floor(now / 1000))
    .setExpirationTime(Math.floor(now / 1000) + ttlSeconds)
    .sign(new TextEncoder().encode(secret));
}
