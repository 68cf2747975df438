/** Checks a verdict's `content` against what the elicitation asked for (MCP form and URL modes). */
import * as z from "../shared/zod.js";
import { badRequest } from "../shared/errors.js";
import { LIMITS, type ElicitationParams, type SchemaProperty } from "../shared/schemas.js";

const FORMATS = {
  email: z.email({ pattern: z.regexes.html5Email, error: "must be an email address" }),
  uri: z.url({ error: "must be an absolute URI" }),
  date: z.iso.date({ error: "must be a date (YYYY-MM-DD)" }),
  "date-time": z.iso.datetime({ offset: true, error: "must be a date and time with its offset (RFC 3339)" }),
};

/** The values a select or multi-select offers. */
const choicesOf = (property: SchemaProperty): string[] | undefined =>
  property.type === "string"
    ? (property.enum ?? property.oneOf?.map((c) => c.const))
    : property.type === "array"
      ? (property.items.enum ?? property.items.anyOf?.map((c) => c.const) ?? [])
      : undefined;

/** One of the choices; the message lists them when they are few. */
const choiceOf = (values: string[]) => {
  const which = values.length <= 10 ? values.map((v) => JSON.stringify(v)).join(", ") : `the ${values.length} choices`;
  return z.enum(values as [string, ...string[]], { error: `must be one of ${which}` });
};

/** The check a form's bound asks for, or none when the form sets no such bound. */
const bound = <C>(value: number | undefined, check: (value: number) => C): C[] => (value === undefined ? [] : [check(value)]);

function propertySchema(property: SchemaProperty): z.core.$ZodType {
  switch (property.type) {
    case "boolean":
      return z.boolean();
    case "number":
    case "integer":
      return (property.type === "integer" ? z.int() : z.number()).check(...bound(property.minimum, z.minimum), ...bound(property.maximum, z.maximum));
    case "string": {
      const choices = choicesOf(property);
      if (choices) return choiceOf(choices);
      const lengths = [z.maxLength(LIMITS.textLength), ...bound(property.minLength, z.minLength), ...bound(property.maxLength, z.maxLength)];
      return (property.format ? FORMATS[property.format] : z.string()).check(...lengths);
    }
    case "array":
      return z.array(choiceOf(choicesOf(property) ?? [])).check(
        z.refine((picked) => new Set(picked).size === picked.length, "must not pick a choice twice"),
        ...bound(property.minItems, (n) => z.minLength(n, `must pick at least ${n}`)),
        ...bound(property.maxItems, (n) => z.maxLength(n, `must pick at most ${n}`)),
      );
  }
}

/**
 * Refuses, with a `bad_request` naming the field, an accept whose content does not fit the form (or
 * that URL mode does not take). An accept without content is held to the form as if it were `{}`, so
 * a form's required fields cannot be skipped by leaving the content out.
 */
export function checkAcceptedContent(params: ElicitationParams, content: Record<string, unknown> | undefined): void {
  if (content !== undefined && JSON.stringify(content).length > 24 * 1024) throw badRequest("content is larger than 24 KiB");
  if (params.mode === "url") {
    if (content !== undefined) throw badRequest("content does not come with a URL-mode elicitation: accepting is the consent");
    return;
  }
  const schema = params.requestedSchema;
  if (!schema) return;
  const required = new Set(schema.required ?? []);
  const shape = Object.fromEntries(
    Object.entries(schema.properties).map(([name, property]) => {
      const field = propertySchema(property);
      return [name, required.has(name) ? field : z.optional(field)];
    }),
  );
  const given = content ?? {};
  const result = z.safeParse(z.strictObject(shape), given);
  if (!result.success) {
    const issue = result.error.issues[0];
    const missing = issue.path.length === 1 && !Object.hasOwn(given, issue.path[0] as string);
    const [where, what] = issue.code === "unrecognized_keys" ? [issue.keys.join(", "), "not a field of the form"] : [issue.path.join("."), missing ? "required" : issue.message];
    throw badRequest(`content does not fit requestedSchema: ${where}: ${what}`);
  }
}
