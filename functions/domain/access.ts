/** The role table's checks (shared/permissions.ts), called first by every domain operation. */
import { forbidden } from "../shared/errors.js";
import { operationWords, permissions, type Operation } from "../shared/permissions.js";
import type { Caller } from "./items.js";

/** Refused, the caller learns which token it needs: a wrong token is the usual cause. */
export function requireRole(caller: Caller, operation: Operation): void {
  const allowed = permissions[operation];
  if (!allowed.includes(caller.role)) throw forbidden(`a ${caller.role} token may not ${operationWords[operation]} (a ${allowed.join(" or ")} token may)`);
}

/** A runner acts only on sessions its own `sub` registered; humans and services on any of the tenant. */
export function requireOwner(caller: Caller, session: { owner_sub: string }): void {
  if (caller.role === "runner" && session.owner_sub !== caller.sub) throw forbidden("this session belongs to another runner");
}
