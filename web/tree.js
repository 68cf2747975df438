// @ts-check
// The inbox's sidebar: every session the inbox knows, drawn as a tree with a live badge each;
// with "only pending", the waiting ones and their ancestors for context.
import { api, sessionsByIds } from "./api.js";
import { byId, h } from "./dom.js";
import { counted } from "./pending.js";
import { store } from "./settings.js";

/** @typedef {import("./types").SessionItem} SessionItem */

/** @type {Map<string, SessionItem>} session_id -> list item; everything we know, whatever is shown */
export const sessions = new Map();
/** What the human looks at: the chosen session and the sidebar's filter. */
export const view = {
  /** @type {string | null} */
  selected: null,
  onlyPending: store.get("tollgate.onlyPending") === "1",
};
/** @type {(id: string) => void} */
let choose = () => {};
/** What a click on a session row does. @param {(id: string) => void} fn */
export const onChoose = (fn) => {
  choose = fn;
};

const $ = byId;
/** A session item as read, with its count as the inbox counts it (pending.js). @param {SessionItem} item */
export function know(item) {
  sessions.set(item.session_id, { ...sessions.get(item.session_id), ...item, pending_elicitations_count: counted(item) });
}

/** A session's name on screen. */
export const label = (/** @type {string} */ id) => sessions.get(id)?.title || id;
const wanted = (/** @type {SessionItem} */ s) => !view.onlyPending || s.pending_elicitations_count > 0 || s.session_id === view.selected;

export async function loadSessions() {
  /** @type {Map<string, SessionItem>} */
  const fresh = new Map();
  let cursor = null;
  let pages = 0;
  do {
    const q = new URLSearchParams(view.onlyPending ? { pending: "true" } : { limit: "200" });
    if (cursor) q.set("cursor", cursor);
    const page = await api(`/v1/sessions?${q}`);
    for (const s of page.sessions || []) fresh.set(s.session_id, s);
    cursor = page.next_cursor;
  } while (cursor && ++pages < 100);
  if (!view.onlyPending) sessions.clear();
  // A session the pending list left out had none pending when it was read.
  for (const s of sessions.values()) if (!fresh.has(s.session_id)) know({ ...s, pending_elicitations_count: 0, pending_elicitation_ids: [] });
  for (const s of fresh.values()) know(s);
  if (view.selected) await ensureKnown(view.selected);
  // Pending-only lists lack the parents of pending sub-agents: fetch them, level by level, for the tree.
  for (let depth = 0; depth < 32; depth++) {
    const missing = [...new Set([...sessions.values()].flatMap((s) => s.parent_session_id ?? []).filter((p) => !sessions.has(p)))];
    if (!missing.length) break;
    for (const s of await sessionsByIds(missing)) know(s);
  }
  renderTree();
}

/** @type {Map<string, Promise<SessionItem | undefined>>} */
const inflight = new Map();

/**
 * Makes sure a session and its ancestors are known (they may have appeared since the last list).
 * @param {string} id
 * @returns {Promise<SessionItem | undefined>}
 */
export function ensureKnown(id) {
  if (sessions.has(id)) return Promise.resolve(sessions.get(id));
  if (!inflight.has(id)) {
    inflight.set(
      id,
      (async () => {
        try {
          let next = /** @type {string | undefined} */ (id);
          for (let depth = 0; next && !sessions.has(next) && depth < 32; depth++) {
            const [item] = await sessionsByIds([next]);
            if (!item) break;
            know(item);
            next = item.parent_session_id;
          }
          renderTree();
        } finally {
          inflight.delete(id);
        }
        return sessions.get(id);
      })(),
    );
  }
  return /** @type {Promise<SessionItem | undefined>} */ (inflight.get(id));
}

/** Sessions to read again, and the reads under way. */
const stale = new Set();
/** @type {Map<string, Promise<void>>} */
const rereads = new Map();

/**
 * Reads a session again (one it counts from its item, after an event of it); calls while a read is under
 * way make one more read after it, so the last one sees every event that asked for it.
 * @param {string} id
 * @returns {Promise<void>}
 */
export function reread(id) {
  stale.add(id);
  if (!rereads.has(id)) {
    const run = async () => {
      try {
        while (stale.delete(id)) {
          const [item] = await sessionsByIds([id]);
          if (item) know(item);
        }
      } finally {
        rereads.delete(id);
      }
    };
    rereads.set(id, run());
  }
  return /** @type {Promise<void>} */ (rereads.get(id));
}

/** True when the session is `root` or one of its descendants. @param {string} id @param {string} root */
export function within(id, root) {
  for (let cur = /** @type {string | undefined} */ (id), n = 0; cur && n < 64; cur = sessions.get(cur)?.parent_session_id, n++) {
    if (cur === root) return true;
  }
  return false;
}

/** The sessions on the sidebar: all, or the pending ones with their ancestors for context. */
function visibleIds() {
  /** @type {Set<string>} */
  const ids = new Set();
  for (const s of sessions.values()) {
    if (!wanted(s)) continue;
    for (let cur = /** @type {string | undefined} */ (s.session_id), n = 0; cur && !ids.has(cur) && n < 64; n++) {
      const item = sessions.get(cur);
      if (!item) break;
      ids.add(cur);
      cur = item.parent_session_id;
    }
  }
  return ids;
}

export function renderTree() {
  const ids = visibleIds();
  const visible = [...ids].flatMap((id) => sessions.get(id) ?? []);
  /** @type {Map<string, SessionItem[]>} */
  const children = new Map();
  for (const s of visible) {
    const parent = s.parent_session_id && ids.has(s.parent_session_id) ? s.parent_session_id : "";
    children.set(parent, [...(children.get(parent) ?? []), s]);
  }
  for (const list of children.values()) list.sort((a, b) => String(b.updated_at).localeCompare(String(a.updated_at)));

  const active = document.activeElement;
  const focused = active instanceof HTMLElement ? active.dataset.sessionId : undefined;
  /** @type {Set<string>} */
  const seen = new Set();
  /** @param {string} parent @returns {HTMLLIElement[]} */
  const branch = (parent) =>
    (children.get(parent) || [])
      .filter((s) => !seen.has(s.session_id))
      .map((s) => {
        seen.add(s.session_id);
        const kids = branch(s.session_id);
        return h("li", {}, row(s), kids.length ? h("ul", {}, kids) : null);
      });
  $("tree").replaceChildren(...branch(""));
  $("sessions-status").textContent = visible.length ? "" : view.onlyPending ? "Nothing is waiting for you." : "No sessions yet.";
  $("sessions-status").className = "muted";
  if (focused)
    document
      .querySelector(`[data-session-id="${CSS.escape(focused)}"]`)
      ?.closest("button")
      ?.focus();
  updateTitle();
}

/** @param {SessionItem} s */
function row(s) {
  const id = s.session_id;
  const count = s.pending_elicitations_count || 0;
  return h(
    "button",
    {
      type: "button",
      class: wanted(s) ? "session-row" : "session-row context",
      "data-testid": `session-${id}`,
      "data-session-id": id,
      "aria-current": id === view.selected ? "true" : false,
      onclick: () => choose(id),
    },
    h("span", { class: "names" }, h("span", { class: "title" }, s.title || id), s.title ? h("span", { class: "id" }, id) : null),
    h("span", { class: "badge", "data-testid": `badge-${id}`, hidden: count === 0, title: `${count} pending` }, String(count), h("span", { class: "visually-hidden" }, " pending")),
  );
}

/** @param {string} id @param {number} count */
export function setBadge(id, count) {
  const s = sessions.get(id);
  if (!s) return;
  const was = wanted(s);
  s.pending_elicitations_count = count;
  const badge = document.querySelector(`[data-testid="badge-${CSS.escape(id)}"]`);
  if (wanted(s) !== was || !(badge instanceof HTMLElement) || !badge.firstChild) return renderTree();
  badge.firstChild.textContent = String(count);
  badge.title = `${count} pending`;
  badge.hidden = count === 0;
  updateTitle();
}

function updateTitle() {
  let total = 0;
  for (const s of sessions.values()) total += s.pending_elicitations_count || 0;
  document.title = total ? `(${total}) Tollgate inbox` : "Tollgate inbox";
}
