// @ts-check
import { h } from "./dom.js";

const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
/** @type {[Intl.RelativeTimeFormatUnit, number][]} */
const UNITS = [
  ["day", 86400],
  ["hour", 3600],
  ["minute", 60],
  ["second", 1],
];

/**
 * "2 minutes ago", "in 3 hours": an instant relative to `now`; "" for what is not a time.
 * @param {string} iso @param {number} [now]
 */
export function relative(iso, now = Date.now()) {
  const secs = (Date.parse(iso) - now) / 1000;
  if (!Number.isFinite(secs)) return "";
  if (Math.abs(secs) < 45) return secs < 0 ? "just now" : "in a few seconds";
  const [unit, size] = UNITS.find(([, size]) => Math.abs(secs) >= size) ?? UNITS[UNITS.length - 1];
  return rtf.format(Math.round(secs / size), unit);
}

/**
 * A <time> whose relative text keepTimesFresh() keeps current.
 * @param {string} iso @param {string} [prefix]
 */
export function timeEl(iso, prefix = "") {
  const d = new Date(iso);
  return h("time", { datetime: iso, title: Number.isNaN(+d) ? "" : d.toLocaleString(), "data-prefix": prefix }, prefix + relative(iso));
}

/** Rewrites every <time> on the page twice a minute. */
export function keepTimesFresh() {
  setInterval(() => {
    for (const t of document.querySelectorAll("time[datetime]")) {
      if (t instanceof HTMLTimeElement) t.textContent = (t.dataset.prefix || "") + relative(t.dateTime);
    }
  }, 30_000);
}
