/** The role table's checks (shared/permissions.ts), called first by every domain operation. */
import { forbidden } from "../shared/errors.js";
import { permissions, type Operation } from "../shared/permissions.js";
import type { Caller } from "./items.js";

export function requireRole(caller: Caller, operation: Operation): void {
  if (!permissions[operation].includes(caller.role)) throw forbidden(`role '${caller.role}' may not ${operation}`);
}

/** A runner acts only on sessions its own `sub` registered; humans and services on any of the tenant. */
export function requireOwner(caller: Caller, session: { owner_sub: string }): void {
  if (caller.role === "runner" && session.owner_sub !== caller.sub) throw forbidden("this session belongs to another runner");
}
