/** Who may do what (PROTOCOL.md "Authentication and tenants"), in one table. */
import { forbidden } from "../shared/errors.js";
import type { Role } from "../shared/schemas.js";
import type { Caller } from "./items.js";

const RUNNER: Role[] = ["runner", "service"];
const HUMAN: Role[] = ["human", "service"];

export const permissions = {
  registerSession: RUNNER,
  raise: RUNNER,
  cancel: RUNNER,
  sendMessage: RUNNER,
  receive: RUNNER,
  answer: HUMAN,
  read: HUMAN,
  subscribe: HUMAN,
  peek: ["runner", "human", "service"] as Role[],
} as const;

export type Operation = keyof typeof permissions;

export function requireRole(caller: Caller, operation: Operation): void {
  if (!permissions[operation].includes(caller.role)) throw forbidden(`role '${caller.role}' may not ${operation}`);
}

/** A runner acts only on sessions its own `sub` registered; humans and services on any of the tenant. */
export function requireOwner(caller: Caller, session: { owner_sub: string }): void {
  if (caller.role === "runner" && session.owner_sub !== caller.sub) throw forbidden("this session belongs to another runner");
}
