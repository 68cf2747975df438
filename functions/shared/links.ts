/**
 * Approval links (docs/protocol.md "Approval links"): a capability for one elicitation, usable
 * without signing in. It is an HS256 JWT under a key derived from the token secret, so a link never
 * verifies as a bearer token and a bearer token never verifies as a link; its audience names what it
 * is, its claims name the tenant and the elicitation, and it expires at the elicitation's deadline.
 */
import { createHmac } from "node:crypto";
import { SignJWT, jwtVerify } from "jose";
import * as z from "./zod.js";
import { ProtocolError } from "./errors.js";
import { Id } from "./schemas.js";

const AUDIENCE = "tollgate:approval-link";
/** A link is never longer than this (a JWT of four short claims is about 300 characters). */
const MAX_LINK_CHARS = 2_048;

/** What a link grants: one verdict on, and the reading of, this elicitation of this tenant. */
export const LinkGrant = z.object({
  tenant: Id,
  elicitation_id: Id,
  /** Whom the link was made for: `target:<id>` for a notification target's, else who shared it or for whom. */
  sub: z.string().check(z.minLength(1), z.maxLength(256)),
  /** Seconds since the epoch: the elicitation's deadline. */
  exp: z.int(),
});
export type LinkGrant = z.infer<typeof LinkGrant>;

export interface LinkSigner {
  sign(grant: LinkGrant): Promise<string>;
  /** The grant of a valid, unexpired link (checked against `now`), else `unauthorized`. */
  verify(link: string | undefined): Promise<LinkGrant>;
}

const derivedKeys = new WeakMap<Uint8Array, Uint8Array>();

/** The links' own key: HMAC-SHA256 of a fixed label under the token secret. */
function linkKey(secret: Uint8Array): Uint8Array {
  let key = derivedKeys.get(secret);
  if (!key) {
    key = new Uint8Array(createHmac("sha256", secret).update("tollgate approval links v1").digest());
    derivedKeys.set(secret, key);
  }
  return key;
}

const refused = () => new ProtocolError("unauthorized", "missing, invalid or expired approval link");

export function linkSigner(secret: () => Promise<Uint8Array>, now: () => number): LinkSigner {
  return {
    async sign(grant) {
      return new SignJWT({ tenant: grant.tenant, elicitation_id: grant.elicitation_id })
        .setProtectedHeader({ alg: "HS256", typ: "JWT" })
        .setSubject(grant.sub)
        .setAudience(AUDIENCE)
        .setIssuedAt(Math.floor(now() / 1000))
        .setExpirationTime(grant.exp)
        .sign(linkKey(await secret()));
    },
    async verify(link) {
      if (!link || link.length > MAX_LINK_CHARS) throw refused();
      try {
        const { payload } = await jwtVerify(link, linkKey(await secret()), {
          algorithms: ["HS256"],
          audience: AUDIENCE,
          requiredClaims: ["exp", "sub", "tenant", "elicitation_id"],
          currentDate: new Date(now()),
        });
        return LinkGrant.parse(payload);
      } catch {
        throw refused();
      }
    },
  };
}
