/** Zod parsing that turns a failure into PROTOCOL.md's `bad_request` with a readable message. */
import type { z } from "zod";
import { badRequest } from "./errors.js";

export function parse<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
  throw badRequest(`${where}${issue.message}`);
}

/** JSON text to a plain object, or `bad_request`. */
export function parseJsonObject(text: string | undefined | null, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text ?? "");
  } catch {
    throw badRequest(`${what} is not valid JSON`);
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) throw badRequest(`${what} must be a JSON object`);
  return value as Record<string, unknown>;
}
