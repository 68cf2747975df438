// @ts-check
// The form grammar's rules as the page applies them, without the DOM: which choices a field offers,
// what its control starts with, and whether what the human entered fits (the server checks the same).

/** @typedef {import("./types").SchemaProperty} SchemaProperty */
/** @typedef {{value: string, label: string}} Choice */
/** A control's raw state: text for inputs and selects, the picked values for a multi-select, checked for a checkbox. */
/** @typedef {string | string[] | boolean} Raw */
/** @typedef {{value?: unknown, error?: string}} Reading */

/** The HTML input type for each string format. */
export const INPUT_TYPES = /** @type {const} */ ({ email: "email", uri: "url", date: "date", "date-time": "datetime-local" });

// The WHATWG email syntax, which `<input type=email>` and the server's check both use.
const EMAIL = /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * The choices of a select (untitled `enum`, legacy `enumNames`, titled `oneOf`) or a multi-select
 * (`items.enum`, `items.anyOf`); undefined for any other field.
 * @param {SchemaProperty} prop
 * @returns {Choice[] | undefined}
 */
export function choicesOf(prop) {
  if (prop.type === "string") {
    if (prop.oneOf) return prop.oneOf.map((c) => ({ value: c.const, label: c.title }));
    return prop.enum?.map((value, i) => ({ value, label: prop.enumNames?.[i] ?? value }));
  }
  if (prop.type === "array") {
    if (prop.items.anyOf) return prop.items.anyOf.map((c) => ({ value: c.const, label: c.title }));
    return (prop.items.enum ?? []).map((value) => ({ value, label: value }));
  }
  return undefined;
}

const pad = (/** @type {number} */ n) => String(n).padStart(2, "0");

/** An RFC 3339 instant as a `datetime-local` value in the page's time zone, or "" when it is not one. @param {string} iso */
export function toLocalInput(iso) {
  const d = new Date(iso);
  if (Number.isNaN(+d)) return "";
  const date = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  return `${date}T${pad(d.getHours())}:${pad(d.getMinutes())}${d.getSeconds() ? `:${pad(d.getSeconds())}` : ""}`;
}

/** A `datetime-local` value (the page's time zone) as an RFC 3339 instant in UTC, or "" when it is not one. @param {string} local */
export function fromLocalInput(local) {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(local)) return "";
  const d = new Date(local);
  return Number.isNaN(+d) ? "" : d.toISOString();
}

/** What the field's control starts with: the form's default where it has one. @param {SchemaProperty} prop @returns {Raw} */
export function initialRaw(prop) {
  switch (prop.type) {
    case "boolean":
      return prop.default === true;
    case "array":
      return prop.default ?? [];
    case "number":
    case "integer":
      return prop.default === undefined ? "" : String(prop.default);
    case "string":
      if (prop.default === undefined) return "";
      return prop.format === "date-time" ? toLocalInput(prop.default) : prop.default;
  }
}

/** @param {string} text */
function isDate(text) {
  const m = DATE.exec(text);
  if (!m) return false;
  const d = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3]));
  return d.getUTCFullYear() === +m[1] && d.getUTCMonth() === +m[2] - 1 && d.getUTCDate() === +m[3];
}

/** @param {SchemaProperty & {type: "string"}} prop @param {string} text @returns {Reading} */
function readText(prop, text) {
  if (prop.minLength !== undefined && text.length < prop.minLength) return { error: `Enter at least ${prop.minLength} characters.` };
  if (prop.maxLength !== undefined && text.length > prop.maxLength) return { error: `Enter at most ${prop.maxLength} characters.` };
  switch (prop.format) {
    case "email":
      return EMAIL.test(text) ? { value: text } : { error: "Enter an email address." };
    case "uri":
      return URL.canParse(text) ? { value: text } : { error: "Enter a full address, such as https://example.com/." };
    case "date":
      return isDate(text) ? { value: text } : { error: "Enter a date." };
    case "date-time": {
      const iso = fromLocalInput(text);
      return iso ? { value: iso } : { error: "Enter a date and time." };
    }
    default:
      return { value: text };
  }
}

/** @param {SchemaProperty & {type: "number" | "integer"}} prop @param {string} text @returns {Reading} */
function readNumber(prop, text) {
  const n = Number(text);
  if (!Number.isFinite(n)) return { error: "Enter a number." };
  if (prop.type === "integer" && !Number.isInteger(n)) return { error: "Enter a whole number." };
  if (prop.minimum !== undefined && n < prop.minimum) return { error: `Enter ${prop.minimum} or more.` };
  if (prop.maximum !== undefined && n > prop.maximum) return { error: `Enter ${prop.maximum} or less.` };
  return { value: n };
}

/** @param {SchemaProperty & {type: "array"}} prop @param {string[]} picked @returns {Reading} */
function readPicks(prop, picked) {
  const allowed = new Set(choicesOf(prop)?.map((c) => c.value));
  if (!picked.every((v) => allowed.has(v))) return { error: "Pick from the choices given." };
  if (prop.minItems !== undefined && picked.length < prop.minItems) return { error: `Pick at least ${prop.minItems}.` };
  if (prop.maxItems !== undefined && picked.length > prop.maxItems) return { error: `Pick at most ${prop.maxItems}.` };
  return { value: picked };
}

/**
 * What the human entered, as the value `content` carries, or why it does not fit. A field left
 * empty has no value (and is an error when required); a multi-select always has its picks.
 * @param {SchemaProperty} prop @param {Raw} raw @param {boolean} required
 * @returns {Reading}
 */
export function readValue(prop, raw, required) {
  if (prop.type === "boolean") return { value: raw === true };
  if (prop.type === "array") {
    const picked = Array.isArray(raw) ? raw : [];
    return !picked.length && !required ? {} : readPicks(prop, picked);
  }
  const text = typeof raw === "string" ? raw : "";
  if (text === "") return required ? { error: "Fill in this field." } : {};
  if (prop.type === "number" || prop.type === "integer") return readNumber(prop, text);
  const choices = choicesOf(prop);
  if (choices) return choices.some((c) => c.value === text) ? { value: text } : { error: "Pick one of the choices." };
  return readText(prop, text);
}

/**
 * A value of `content` as the verdict shows it: choices by their titles, yes/no for booleans.
 * @param {SchemaProperty | undefined} prop @param {unknown} value
 */
export function displayValue(prop, value) {
  if (typeof value === "boolean") return value ? "yes" : "no";
  const choices = prop && choicesOf(prop);
  const label = (/** @type {unknown} */ v) => choices?.find((c) => c.value === v)?.label ?? String(v);
  return Array.isArray(value) ? value.map(label).join(", ") || "none" : label(value);
}
