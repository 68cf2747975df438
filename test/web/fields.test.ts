/** The form grammar as the inbox applies it: choices, starting values, what fits, and how a verdict shows it. */
import { describe, expect, it } from "vitest";
import { choicesOf, displayValue, fromLocalInput, initialRaw, readValue, toLocalInput } from "../../web/fields.js";
import type { SchemaProperty } from "../../web/types.js";

const titled: SchemaProperty = {
  type: "string",
  oneOf: [
    { const: "eu", title: "Ireland" },
    { const: "us", title: "Virginia" },
  ],
};
const legacy: SchemaProperty = { type: "string", enum: ["s", "m"], enumNames: ["Small", "Medium"] };
const untitled: SchemaProperty = { type: "string", enum: ["a", "b"] };
const multi: SchemaProperty = { type: "array", minItems: 1, maxItems: 2, items: { enum: ["red", "green", "blue"] } };
const titledMulti: SchemaProperty = {
  type: "array",
  items: {
    anyOf: [
      { const: "ops", title: "Operations" },
      { const: "sec", title: "Security" },
    ],
  },
};

describe("choicesOf", () => {
  it("gives each select kind's values with their labels", () => {
    expect(choicesOf(titled)).toEqual([
      { value: "eu", label: "Ireland" },
      { value: "us", label: "Virginia" },
    ]);
    expect(choicesOf(legacy)).toEqual([
      { value: "s", label: "Small" },
      { value: "m", label: "Medium" },
    ]);
    expect(choicesOf(untitled)).toEqual([
      { value: "a", label: "a" },
      { value: "b", label: "b" },
    ]);
    expect(choicesOf(multi)?.map((c) => c.value)).toEqual(["red", "green", "blue"]);
    expect(choicesOf(titledMulti)).toEqual([
      { value: "ops", label: "Operations" },
      { value: "sec", label: "Security" },
    ]);
  });

  it("gives none for fields that are not selects", () => {
    expect(choicesOf({ type: "string" })).toBeUndefined();
    expect(choicesOf({ type: "integer" })).toBeUndefined();
    expect(choicesOf({ type: "boolean" })).toBeUndefined();
  });
});

describe("readValue", () => {
  it("reads text with its bounds and formats", () => {
    const name: SchemaProperty = { type: "string", minLength: 2, maxLength: 4 };
    expect(readValue(name, "Al", true)).toEqual({ value: "Al" });
    expect(readValue(name, "A", true).error).toMatch(/at least 2/);
    expect(readValue(name, "Alice", true).error).toMatch(/at most 4/);
    expect(readValue({ type: "string", format: "email" }, "a@b", true)).toEqual({ value: "a@b" });
    expect(readValue({ type: "string", format: "email" }, "a b@c", true).error).toMatch(/email/);
    expect(readValue({ type: "string", format: "uri" }, "https://example.com/x", true)).toEqual({ value: "https://example.com/x" });
    expect(readValue({ type: "string", format: "uri" }, "example.com", true).error).toMatch(/full address/);
    expect(readValue({ type: "string", format: "date" }, "2028-02-29", true)).toEqual({ value: "2028-02-29" });
    expect(readValue({ type: "string", format: "date" }, "2026-02-29", true).error).toMatch(/date/);
    expect(readValue({ type: "string", format: "date-time" }, "soon", true).error).toMatch(/date and time/);
  });

  it("sends a date and time as an instant with its offset", () => {
    const { value } = readValue({ type: "string", format: "date-time" }, "2026-12-24T18:30", true);
    expect(value).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(toLocalInput(value as string)).toBe("2026-12-24T18:30");
  });

  it("reads numbers and integers within their bounds", () => {
    const count: SchemaProperty = { type: "integer", minimum: 1, maximum: 9 };
    expect(readValue(count, "4", true)).toEqual({ value: 4 });
    expect(readValue(count, "4.5", true).error).toMatch(/whole number/);
    expect(readValue(count, "0", true).error).toMatch(/1 or more/);
    expect(readValue(count, "10", true).error).toMatch(/9 or less/);
    expect(readValue({ type: "number", maximum: 1 }, "0.25", true)).toEqual({ value: 0.25 });
    expect(readValue({ type: "number" }, "e", true).error).toMatch(/a number/);
  });

  it("reads selects and multi-selects by their values", () => {
    expect(readValue(titled, "us", true)).toEqual({ value: "us" });
    expect(readValue(titled, "Virginia", true).error).toMatch(/choices/);
    expect(readValue(multi, ["red", "blue"], true)).toEqual({ value: ["red", "blue"] });
    expect(readValue(multi, [], true).error).toMatch(/at least 1/);
    expect(readValue(multi, ["red", "green", "blue"], true).error).toMatch(/at most 2/);
    expect(readValue(multi, ["pink"], true).error).toMatch(/choices/);
    expect(readValue(titledMulti, [], true)).toEqual({ value: [] });
  });

  it("leaves an empty optional field out and refuses an empty required one", () => {
    expect(readValue({ type: "string" }, "", false)).toEqual({});
    expect(readValue({ type: "integer" }, "", false)).toEqual({});
    expect(readValue(multi, [], false)).toEqual({});
    expect(readValue({ type: "string" }, "", true).error).toMatch(/Fill in/);
    expect(readValue(titled, "", true).error).toMatch(/Fill in/);
    expect(readValue({ type: "boolean" }, false, true)).toEqual({ value: false });
  });
});

describe("initialRaw", () => {
  it("starts each control at the form's default", () => {
    expect(initialRaw({ type: "boolean", default: true })).toBe(true);
    expect(initialRaw({ type: "boolean" })).toBe(false);
    expect(initialRaw({ type: "integer", default: 3 })).toBe("3");
    expect(initialRaw({ type: "number" })).toBe("");
    expect(initialRaw({ type: "string", default: "Ada" })).toBe("Ada");
    expect(initialRaw({ ...titled, default: "eu" })).toBe("eu");
    expect(initialRaw({ ...multi, default: ["green"] })).toEqual(["green"]);
    expect(initialRaw(multi)).toEqual([]);
  });

  it("shows a date-time default in the page's time zone, the same instant", () => {
    const iso = "2026-12-24T17:30:15.000Z";
    const local = initialRaw({ type: "string", format: "date-time", default: iso });
    expect(local).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:15$/);
    expect(fromLocalInput(local as string)).toBe(iso);
    expect(initialRaw({ type: "string", format: "date-time", default: "not a time" })).toBe("");
  });
});

describe("fromLocalInput", () => {
  it("takes only datetime-local values", () => {
    expect(fromLocalInput("2026-12-24T18:30:00")).toMatch(/Z$/);
    for (const bad of ["", "2026-12-24", "2026-12-24T18:30Z", "24.12.2026 18:30", "2026-13-40T99:99"]) expect(fromLocalInput(bad)).toBe("");
  });
});

describe("displayValue", () => {
  it("shows choices by their titles and booleans as yes or no", () => {
    expect(displayValue(titled, "us")).toBe("Virginia");
    expect(displayValue(legacy, "m")).toBe("Medium");
    expect(displayValue(titledMulti, ["sec", "ops"])).toBe("Security, Operations");
    expect(displayValue(multi, [])).toBe("none");
    expect(displayValue({ type: "boolean" }, true)).toBe("yes");
    expect(displayValue({ type: "integer" }, 4)).toBe("4");
    expect(displayValue(undefined, "kept")).toBe("kept");
  });
});
