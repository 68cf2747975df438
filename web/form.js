// @ts-check
// The answer form of a card: one control per requestedSchema property, pre-filled with its default,
// read back as `content`. What does not fit the form is refused in the page, with a message at the field.
import { h, nextId } from "./dom.js";
import { choicesOf, initialRaw, INPUT_TYPES, readValue } from "./fields.js";

/** @typedef {import("./types").SchemaProperty} SchemaProperty */
/** @typedef {import("./types").RequestedSchema} RequestedSchema */
/** @typedef {import("./fields.js").Raw} Raw */
/** @typedef {import("./fields.js").Choice} Choice */
/** @typedef {HTMLInputElement | HTMLSelectElement} Control */
/** @typedef {{el: HTMLElement, controls: Control[], raw: () => Raw}} Built */

/** A label with the required mark. @param {string} text @param {boolean} required */
const labelText = (text, required) => [text, required ? h("span", { class: "req", "aria-hidden": "true" }, " *") : null];

/** @param {string} id @param {string} name @param {SchemaProperty & {type: "boolean"}} prop @param {boolean} required @returns {Built} */
function checkbox(id, name, prop, required) {
  const input = h("input", { id, name, type: "checkbox", checked: initialRaw(prop) === true });
  const el = h("div", { class: "field check" }, input, h("label", { for: id }, labelText(prop.title || name, required)));
  return { el, controls: [input], raw: () => input.checked };
}

/** @param {string} id @param {string} name @param {SchemaProperty & {type: "array"}} prop @param {Choice[]} choices @param {boolean} required @returns {Built} */
function checkboxes(id, name, prop, choices, required) {
  const picked = new Set(/** @type {string[]} */ (initialRaw(prop)));
  const boxes = choices.map((c, i) => h("input", { id: `${id}-${i}`, name, type: "checkbox", value: c.value, checked: picked.has(c.value) }));
  const limits = [prop.minItems !== undefined ? `at least ${prop.minItems}` : "", prop.maxItems !== undefined ? `at most ${prop.maxItems}` : ""].filter(Boolean);
  const el = h(
    "fieldset",
    { class: "field choices", id },
    h("legend", {}, labelText(prop.title || name, required), limits.length ? h("span", { class: "limits" }, ` (pick ${limits.join(", ")})`) : null),
    boxes.map((box, i) => h("div", { class: "choice" }, box, h("label", { for: box.id }, choices[i].label))),
  );
  return { el, controls: boxes, raw: () => boxes.filter((b) => b.checked).map((b) => b.value) };
}

/** @param {string} id @param {string} name @param {SchemaProperty} prop @param {Choice[]} choices @param {boolean} required @returns {Built} */
function select(id, name, prop, choices, required) {
  const start = initialRaw(prop);
  const input = h(
    "select",
    { id, name, required },
    h("option", { value: "", disabled: required, selected: start === "" }, required ? "Choose…" : "—"),
    choices.map((c) => h("option", { value: c.value, selected: start === c.value }, c.label)),
  );
  return { el: h("div", { class: "field" }, h("label", { for: id }, labelText(prop.title || name, required)), input), controls: [input], raw: () => input.value };
}

/** @param {SchemaProperty} prop */
function inputAttrs(prop) {
  if (prop.type === "number" || prop.type === "integer") {
    const integer = prop.type === "integer";
    return { type: "number", inputmode: integer ? "numeric" : "decimal", step: integer ? 1 : "any", min: prop.minimum, max: prop.maximum };
  }
  if (prop.type !== "string") return {};
  const type = prop.format ? INPUT_TYPES[prop.format] : "text";
  return { type, step: type === "datetime-local" ? 1 : undefined, minlength: prop.minLength, maxlength: prop.maxLength, autocomplete: "off" };
}

/** @param {string} id @param {string} name @param {SchemaProperty} prop @param {boolean} required @returns {Built} */
function input(id, name, prop, required) {
  const el = h("input", { id, name, required, value: initialRaw(prop), ...inputAttrs(prop) });
  return { el: h("div", { class: "field" }, h("label", { for: id }, labelText(prop.title || name, required)), el), controls: [el], raw: () => el.value };
}

/** @param {string} name @param {SchemaProperty} prop @param {boolean} required */
function buildField(name, prop, required) {
  const id = nextId("field");
  const choices = choicesOf(prop);
  const built =
    prop.type === "boolean"
      ? checkbox(id, name, prop, required)
      : prop.type === "array"
        ? checkboxes(id, name, prop, choices ?? [], required)
        : choices
          ? select(id, name, prop, choices, required)
          : input(id, name, prop, required);
  if (prop.description) {
    const helpId = `${id}-help`;
    built.el.append(h("p", { class: "help", id: helpId }, prop.description));
    for (const c of built.controls) c.setAttribute("aria-describedby", helpId);
  }
  // A message set at the last submit stays until the human changes something.
  for (const c of built.controls) c.addEventListener("input", () => built.controls[0].setCustomValidity(""));
  return built;
}

/**
 * The controls of a form and a reader for them. read() checks every field, marks the ones that do
 * not fit (form.reportValidity() then shows the first), and returns the content to send.
 * @param {RequestedSchema} schema
 */
export function buildForm(schema) {
  const required = new Set(schema.required ?? []);
  const fields = Object.entries(schema.properties).map(([name, prop]) => ({ name, prop, built: buildField(name, prop, required.has(name)) }));
  function read() {
    /** @type {Record<string, unknown>} */
    const content = {};
    for (const { name, prop, built } of fields) {
      const reading = readValue(prop, built.raw(), required.has(name));
      built.controls[0].setCustomValidity(reading.error ?? "");
      if (reading.value !== undefined) content[name] = reading.value;
    }
    return content;
  }
  return { nodes: fields.map((f) => f.built.el), read };
}
