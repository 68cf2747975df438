// @ts-check
// The answer form of a card: one control per requestedSchema property, read back as content.
import { h, nextId } from "./dom.js";

/** @typedef {import("./types").SchemaProperty} SchemaProperty */
/** @typedef {import("./types").RequestedSchema} RequestedSchema */

const INPUT_TYPES = { email: "email", uri: "url", date: "date", "date-time": "datetime-local" };

/** @param {string} name @param {SchemaProperty} prop @param {boolean} required */
export function buildField(name, prop, required) {
  const id = nextId("field");
  const helpId = prop.description ? `${id}-help` : null;
  const common = { id, name, required: required && prop.type !== "boolean", "aria-describedby": helpId };
  let input;
  if (prop.type === "boolean") {
    input = h("input", { ...common, type: "checkbox", checked: prop.default === true });
  } else if (prop.type === "number" || prop.type === "integer") {
    input = h("input", {
      ...common, type: "number", inputmode: prop.type === "integer" ? "numeric" : "decimal",
      step: prop.type === "integer" ? 1 : "any", min: prop.minimum, max: prop.maximum, value: prop.default,
    });
  } else if (Array.isArray(prop.enum)) {
    const names = Array.isArray(prop.enumNames) ? prop.enumNames : [];
    input = h("select", common,
      h("option", { value: "", disabled: required, selected: prop.default === undefined }, required ? "Choose…" : "—"),
      prop.enum.map((v, i) => h("option", { value: v, selected: prop.default === v }, names[i] ?? v)));
  } else {
    input = h("input", {
      ...common, type: (prop.format && INPUT_TYPES[prop.format]) || "text", minlength: prop.minLength, maxlength: prop.maxLength,
      value: prop.default, autocomplete: "off",
    });
  }
  const label = h("label", { for: id }, prop.title || name, required ? h("span", { class: "req", "aria-hidden": "true" }, " *") : null);
  const help = helpId ? h("p", { class: "help", id: helpId }, prop.description) : null;
  return prop.type === "boolean" ? h("div", { class: "field check" }, input, label, help) : h("div", { class: "field" }, label, input, help);
}

/** @param {HTMLFormElement} form @param {RequestedSchema} schema */
export function readForm(form, schema) {
  /** @type {Record<string, unknown>} */
  const content = {};
  for (const [name, prop] of Object.entries(schema.properties)) {
    const input = form.elements.namedItem(name);
    if (!(input instanceof HTMLInputElement || input instanceof HTMLSelectElement)) continue;
    if (prop.type === "boolean" && input instanceof HTMLInputElement) content[name] = input.checked;
    else if (input.value === "") continue;
    else if (prop.type === "integer") content[name] = parseInt(input.value, 10);
    else if (prop.type === "number") content[name] = Number(input.value);
    else content[name] = input.value;
  }
  return content;
}
