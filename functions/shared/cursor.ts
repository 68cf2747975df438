/** Opaque, tamper-safe pagination cursors: the position, bound to the tenant and signed. */
import { createHmac, timingSafeEqual } from "node:crypto";
import { badRequest } from "./errors.js";
import * as z from "./zod.js";
import { Id } from "./schemas.js";

const mac = (key: Uint8Array, tenant: string, payload: string) => createHmac("sha256", key).update(`${tenant}\n${payload}`).digest("base64url");

export function encodeCursor(key: Uint8Array, tenant: string, after: string): string {
  const payload = Buffer.from(JSON.stringify({ after })).toString("base64url");
  return `${payload}.${mac(key, tenant, payload)}`;
}

/** The position a cursor carries, checked against what a position of its listing looks like (a session id by default). */
export function decodeCursor(key: Uint8Array, tenant: string, cursor: string, position: z.core.$ZodType<string> = Id): string {
  const [payload, signature, extra] = cursor.split(".");
  const expected = payload ? mac(key, tenant, payload) : "";
  const valid = !!payload && extra === undefined && signature !== undefined && Buffer.byteLength(signature) === expected.length && timingSafeEqual(Buffer.from(signature), Buffer.from(expected));
  if (!valid) throw badRequest("cursor is not valid");
  const after = (JSON.parse(Buffer.from(payload, "base64url").toString()) as { after?: unknown }).after;
  const parsed = z.safeParse(position, after);
  if (!parsed.success) throw badRequest("cursor is not valid");
  return parsed.data;
}
