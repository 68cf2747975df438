/** Checks a verdict's `content` against the elicitation's `requestedSchema` (MCP form mode). */
import * as z from "zod";
import { badRequest } from "../shared/errors.js";
import type { RequestedSchema, SchemaProperty } from "../shared/schemas.js";

function propertySchema(property: SchemaProperty): z.ZodType {
  switch (property.type) {
    case "boolean":
      return z.boolean();
    case "number":
    case "integer": {
      let schema = property.type === "integer" ? z.number().int() : z.number();
      if (property.minimum !== undefined) schema = schema.min(property.minimum);
      if (property.maximum !== undefined) schema = schema.max(property.maximum);
      return schema;
    }
    case "string": {
      if (property.enum) return z.enum(property.enum as [string, ...string[]]);
      let schema = z.string().max(16_000);
      if (property.minLength !== undefined) schema = schema.min(property.minLength);
      if (property.maxLength !== undefined) schema = schema.max(property.maxLength);
      return schema;
    }
  }
}

export function checkContent(schema: RequestedSchema | undefined, content: Record<string, unknown> | undefined): void {
  if (content === undefined) return;
  if (JSON.stringify(content).length > 24 * 1024) throw badRequest("content is larger than 24 KiB");
  if (!schema) return;
  const required = new Set(schema.required ?? []);
  const shape = Object.fromEntries(
    Object.entries(schema.properties).map(([name, property]) => {
      const field = propertySchema(property);
      return [name, required.has(name) ? field : field.optional()];
    }),
  );
  const result = z.strictObject(shape).safeParse(content);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw badRequest(`content does not fit requestedSchema: ${issue.path.join(".") || "content"}: ${issue.message}`);
  }
}
