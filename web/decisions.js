// @ts-check
// A session's recent decisions, its sub-agents' included (GET /v1/history): who decided what, when, and the reason given.
import { api, ApiError } from "./api.js";
import { fill, h } from "./dom.js";
import { timeEl } from "./time.js";
import { verdictWords } from "./verdict.js";

/** @typedef {import("./types").HistoryEntry} HistoryEntry */
/** @typedef {import("./types").HistoryPage} HistoryPage */

const SHOWN = 5;
/** A session's decisions are filtered out of the tenant's: read on a few pages for a quiet session of a busy tenant. */
const PAGES = 5;

/** The (empty) list under the pending cards. */
export const decisionsList = () => h("ol", { id: "decisions", class: "decisions", "data-testid": "decisions" });

/** @param {HistoryEntry} e @param {string} sessionId @param {(id: string) => string} label */
function decisionItem(e, sessionId, label) {
  const v = e.verdict;
  const words = verdictWords(v);
  return h(
    "li",
    { "data-testid": `decision-${e.elicitation_id}`, "data-action": v.action },
    h("strong", {}, words.action),
    " ",
    h("span", { class: "asked" }, e.params.message),
    e.session_id === sessionId ? null : h("span", { class: "muted" }, ` (${label(e.session_id)})`),
    ` — ${words.how} `,
    h("span", { class: "by" }, v.resolved_by || "unknown"),
    v.resolved_at ? [", ", timeEl(v.resolved_at)] : null,
    v.message ? [" ", h("q", { class: "said" }, v.message)] : null,
  );
}

/** @param {string} sessionId */
async function recent(sessionId) {
  /** @type {HistoryEntry[]} */
  const found = [];
  let cursor = null;
  for (let i = 0; i < PAGES && found.length < SHOWN; i++) {
    const query = `session_id=${encodeURIComponent(sessionId)}&descendants=true&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    /** @type {HistoryPage} */
    const page = await api(`/v1/history?${query}`);
    found.push(...page.items);
    cursor = page.next_cursor;
    if (!cursor) break;
  }
  return found.slice(0, SHOWN);
}

/** @param {string} sessionId @param {(id: string) => string} label */
async function decisionItems(sessionId, label) {
  try {
    const entries = await recent(sessionId);
    return entries.length ? entries.map((e) => decisionItem(e, sessionId, label)) : h("li", { class: "none muted" }, "No decisions yet.");
  } catch (err) {
    // A deployment that keeps no history (TOLLGATE_HISTORY=off) answers not_found.
    if (!(err instanceof ApiError && err.code === "not_found")) throw err;
    return h("li", { class: "none muted", "data-testid": "no-history" }, "This deployment keeps no history of decisions.");
  }
}

/**
 * Fill the list with the session's latest decisions, if the list is still on screen for it.
 * @param {string} sessionId @param {(id: string) => string} label @param {() => boolean} current
 */
export async function showDecisions(sessionId, label, current) {
  const items = await decisionItems(sessionId, label);
  const list = document.getElementById("decisions");
  if (!list || !current()) return;
  fill(list, items);
}
