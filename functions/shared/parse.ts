/** Zod parsing that turns a failure into `bad_request` (docs/protocol.md "Errors") with a readable message. */
import * as z from "./zod.js";
import { badRequest } from "./errors.js";

/** `name`: what the value is when it is no field of a body (a path's id), so that the refusal says which. */
export function parse<S extends z.core.$ZodType>(schema: S, value: unknown, name?: string): z.infer<S> {
  const result = z.safeParse(schema, value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = [...(name ? [name] : []), ...issue.path.map(String)];
  const where = path.length > 0 ? `${path.join(".")}: ` : "";
  throw badRequest(`${where}${issue.message}`);
}

/**
 * How deep a request body or frame may nest. The deepest legitimate shape is a verdict's
 * `content`; DynamoDB stores at most 32 levels, and `content` sits two levels down in its item.
 */
export const MAX_JSON_DEPTH = 20;

/** A lone UTF-16 surrogate: not Unicode, and not storable as UTF-8. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

class Refused extends Error {}

/** Refuses `__proto__` keys (zod would silently drop them) and strings that are not well-formed Unicode. */
function reviver(key: string, value: unknown): unknown {
  if (key === "__proto__") throw new Refused("the key __proto__ is not allowed");
  if (LONE_SURROGATE.test(key) || (typeof value === "string" && LONE_SURROGATE.test(value))) throw new Refused("strings must be well-formed Unicode");
  return value;
}

/** Depth of a parsed JSON value, without recursion (a hostile body may nest thousands deep). */
function tooDeep(root: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[root, 1]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (!value || typeof value !== "object") continue;
    if (depth > max) return true;
    for (const child of Object.values(value)) if (child && typeof child === "object") stack.push([child, depth + 1]);
  }
  return false;
}

/** JSON text to a plain object, or `bad_request`. */
export function parseJsonObject(text: string | undefined | null, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text ?? "", reviver);
  } catch (error) {
    if (error instanceof Refused) throw badRequest(`${what}: ${error.message}`);
    throw badRequest(error instanceof RangeError ? `${what} nests deeper than ${MAX_JSON_DEPTH} levels` : `${what} is not valid JSON`);
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) throw badRequest(`${what} must be a JSON object`);
  if (tooDeep(value, MAX_JSON_DEPTH)) throw badRequest(`${what} nests deeper than ${MAX_JSON_DEPTH} levels`);
  return value as Record<string, unknown>;
}
