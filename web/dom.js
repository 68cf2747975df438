// @ts-check
// Builds the page from nodes. Text from the server goes in as text nodes or attributes, never as HTML.

/** @typedef {import("./types").Child} Child */
/** @typedef {Record<string, unknown>} Attrs */

/**
 * h("button", {class: "x", onclick: fn}, "text", childNode): attributes that are false, null or
 * undefined are left out, `on…` functions become listeners; children are text or nodes, nested freely.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Attrs} [attrs]
 * @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === false || v === null || v === undefined) continue;
    if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), /** @type {EventListener} */ (v));
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  append(el, children);
  return el;
}

/** Replaces an element's children. @param {Element} el @param {...Child} children */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
}

/** @param {Element} el @param {readonly Child[]} children */
function append(el, children) {
  for (const c of children) {
    if (Array.isArray(c)) append(el, c);
    else if (c !== null && c !== undefined && c !== false) el.append(c instanceof Node ? c : String(c));
  }
}

/** The element with this id, which the page is known to have. */
export function byId(/** @type {string} */ id) {
  const el = document.getElementById(id);
  if (!el) throw new Error(`the page has no #${id}`);
  return el;
}

let uid = 0;
/** A fresh id for linking labels, help text and inputs. */
export const nextId = (/** @type {string} */ prefix) => `${prefix}-${++uid}`;
