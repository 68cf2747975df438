// @ts-check
// The approval inbox: a session tree with live badges, and the open approvals of the chosen session.
import { api, ApiError, seg, sessionsByIds } from "./api.js";
import { createCard } from "./card.js";
import { byId, h } from "./dom.js";
import { live } from "./live.js";
import { store } from "./settings.js";
import { boot } from "./signin.js";

/** @typedef {import("./types").SessionItem} SessionItem */
/** @typedef {import("./types").SessionDetail} SessionDetail */
/** @typedef {import("./types").RequestEvent} RequestEvent */
/** @typedef {import("./types").ResolvedEvent} ResolvedEvent */
/** @typedef {import("./types").LiveEvent} LiveEvent */
/** @typedef {import("./card.js").Card} Card */

/** @type {Map<string, SessionItem>} session_id -> list item; everything we know, whatever is shown */
const sessions = new Map();
/** @type {Map<string, Card>} elicitation_id -> card, for the session on screen */
const cards = new Map();
/** @type {Map<string, ResolvedEvent>} recent resolutions, for cards that arrive after their verdict */
const resolvedEvents = new Map();
/** @type {string | null} */
let selected = null;
let onlyPending = store.get("tollgate.onlyPending") === "1";
let detailSeq = 0;

const $ = byId;
const label = (/** @type {string} */ id) => sessions.get(id)?.title || id;
const wanted = (/** @type {SessionItem} */ s) => !onlyPending || s.pending_elicitations_count > 0 || s.session_id === selected;
/** @param {{created_at?: string}} a @param {{created_at?: string}} b */
const byCreated = (a, b) => String(a.created_at).localeCompare(String(b.created_at));

// ---------------------------------------------------------------- sessions

async function loadSessions() {
  /** @type {Map<string, SessionItem>} */
  const fresh = new Map();
  let cursor = null;
  let pages = 0;
  do {
    const q = new URLSearchParams(onlyPending ? { pending: "true" } : { limit: "200" });
    if (cursor) q.set("cursor", cursor);
    const page = await api(`/v1/sessions?${q}`);
    for (const s of page.sessions || []) fresh.set(s.session_id, s);
    cursor = page.next_cursor;
  } while (cursor && ++pages < 100);
  if (!onlyPending) sessions.clear();
  for (const s of sessions.values()) if (!fresh.has(s.session_id)) s.pending_elicitations_count = 0;
  for (const [id, s] of fresh) sessions.set(id, s);
  if (selected) await ensureKnown(selected);
  // Pending-only lists lack the parents of pending sub-agents: fetch them, level by level, for the tree.
  for (let depth = 0; depth < 32; depth++) {
    const missing = [...new Set([...sessions.values()].flatMap((s) => s.parent_session_id ?? []).filter((p) => !sessions.has(p)))];
    if (!missing.length) break;
    for (const s of await sessionsByIds(missing)) sessions.set(s.session_id, s);
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
function ensureKnown(id) {
  if (sessions.has(id)) return Promise.resolve(sessions.get(id));
  if (!inflight.has(id)) {
    inflight.set(id, (async () => {
      try {
        let next = /** @type {string | undefined} */ (id);
        for (let depth = 0; next && !sessions.has(next) && depth < 32; depth++) {
          const [item] = await sessionsByIds([next]);
          if (!item) break;
          sessions.set(item.session_id, item);
          next = item.parent_session_id;
        }
        renderTree();
      } finally {
        inflight.delete(id);
      }
      return sessions.get(id);
    })());
  }
  return /** @type {Promise<SessionItem | undefined>} */ (inflight.get(id));
}

/** True when the session is `root` or one of its descendants. @param {string} id @param {string} root */
function within(id, root) {
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

function renderTree() {
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
  const branch = (parent) => (children.get(parent) || []).filter((s) => !seen.has(s.session_id)).map((s) => {
    seen.add(s.session_id);
    const kids = branch(s.session_id);
    return h("li", {}, row(s), kids.length ? h("ul", {}, kids) : null);
  });
  $("tree").replaceChildren(...branch(""));
  $("sessions-status").textContent = visible.length ? "" : onlyPending ? "Nothing is waiting for you." : "No sessions yet.";
  $("sessions-status").className = "muted";
  if (focused) document.querySelector(`[data-session-id="${CSS.escape(focused)}"]`)?.closest("button")?.focus();
  updateTitle();
}

/** @param {SessionItem} s */
function row(s) {
  const id = s.session_id;
  const count = s.pending_elicitations_count || 0;
  return h("button", {
    type: "button", class: wanted(s) ? "session-row" : "session-row context", "data-testid": `session-${id}`, "data-session-id": id,
    "aria-current": id === selected ? "true" : false, onclick: () => select(id),
  },
    h("span", { class: "names" },
      h("span", { class: "title" }, s.title || id),
      s.title ? h("span", { class: "id" }, id) : null),
    h("span", { class: "badge", "data-testid": `badge-${id}`, hidden: count === 0, title: `${count} pending` },
      String(count), h("span", { class: "visually-hidden" }, " pending")));
}

/** @param {string} id @param {number} count */
function setBadge(id, count) {
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

// ---------------------------------------------------------------- the chosen session

/** @param {string | null} id */
function select(id) {
  if (id === selected) return;
  selected = id;
  history.replaceState(null, "", id ? `#session=${encodeURIComponent(id)}` : location.pathname + location.search);
  document.body.classList.toggle("has-selection", Boolean(id));
  cards.clear();
  renderTree();
  if (id) loadDetail(true);
  else $("pane").replaceChildren(h("p", { class: "empty" }, "Choose a session."));
}

/** @param {RequestEvent} ev */
function addCard(ev) {
  let card = cards.get(ev.elicitation_id);
  if (!card) {
    const sub = ev.session_id !== selected;
    card = createCard(ev, { label: label(ev.session_id), sub, sessionHref: sub ? `#session=${encodeURIComponent(ev.session_id)}` : null });
    cards.set(ev.elicitation_id, card);
    const verdict = resolvedEvents.get(ev.elicitation_id);
    if (verdict) card.resolve(verdict);
  }
  mount(card);
}

/** Puts a card into the list in created_at order (cards can arrive before the list exists). @param {Card} card */
function mount(card) {
  const list = document.getElementById("cards");
  if (!list || card.el.isConnected) return;
  list.querySelector(".none")?.remove();
  const later = [...cards.values()].find((c) => c.el.isConnected && byCreated(c.event, card.event) > 0);
  list.insertBefore(h("li", {}, card.el), later ? later.el.parentElement : null);
}

/** @param {boolean} fresh true when the session was just chosen */
async function loadDetail(fresh) {
  const id = selected;
  if (!id) return;
  const seq = ++detailSeq;
  if (fresh) $("pane").replaceChildren(h("p", { class: "muted" }, "Loading…"));
  /** @type {SessionDetail} */
  let d;
  try {
    d = await api(`/v1/sessions/${seg(id)}`);
  } catch (e) {
    if (seq !== detailSeq) return;
    const missing = e instanceof ApiError && e.status === 404;
    if (missing && !sessions.get(id)?.updated_at) sessions.delete(id); // the list invents unknown ids
    renderTree();
    const text = missing ? "This session does not exist." : e instanceof Error ? e.message : String(e);
    return $("pane").replaceChildren(h("p", { class: "error", role: "alert" }, text));
  }
  if (seq !== detailSeq) return;
  const { pending_elicitations: own = [], descendant_pending_elicitations: desc = [], ...item } = d;
  sessions.set(id, { ...sessions.get(id), ...item });
  await Promise.all([...new Set(desc.map((e) => e.session_id))].map(ensureKnown));
  if (seq !== detailSeq) return;
  const pending = [...own, ...desc].sort(byCreated);

  if (fresh || !document.getElementById("cards")) renderPane(item);
  for (const ev of pending) addCard(ev);
  for (const card of cards.values()) mount(card); // live arrivals from before the list existed
  // Cards still pending on screen but gone from the snapshot resolved while we were away.
  const still = new Set(pending.map((e) => e.elicitation_id));
  for (const card of cards.values()) {
    if (card.resolved || still.has(card.id)) continue;
    api(`/v1/elicitations/${seg(card.id)}`).then((e) => e.verdict && card.resolve(e.verdict)).catch(() => {});
  }
  if (!cards.size) $("cards").append(h("li", { class: "none muted" }, "Nothing is waiting in this session or its sub-agents."));
  renderTree();
}

/** @param {SessionItem} item */
function renderPane(item) {
  const parent = item.parent_session_id;
  $("pane").replaceChildren(
    h("button", { type: "button", class: "back quiet", onclick: () => select(null) }, "← Sessions"),
    h("header", { class: "pane-head" },
      h("h1", {}, item.title || item.session_id),
      h("p", { class: "muted meta" },
        item.title ? h("code", {}, item.session_id) : null,
        parent ? [item.title ? " · " : "", "sub-agent of ", h("a", { href: `#session=${encodeURIComponent(parent)}` }, label(parent))] : null)),
    h("h2", { class: "visually-hidden" }, "Open approvals"),
    h("ol", { id: "cards", class: "cards" }));
}

// ---------------------------------------------------------------- live events

/** @param {LiveEvent} ev */
async function onEvent(ev) {
  if (ev.type === "session.badge") {
    if (!sessions.has(ev.session_id)) await ensureKnown(ev.session_id);
    setBadge(ev.session_id, ev.pending_elicitations_count);
  } else if (ev.type === "response.elicitation_request") {
    await ensureKnown(ev.session_id);
    if (selected && within(ev.session_id, selected)) addCard(ev);
  } else if (ev.type === "response.elicitation_resolved") {
    resolvedEvents.set(ev.elicitation_id, ev);
    const oldest = resolvedEvents.keys().next().value;
    if (resolvedEvents.size > 500 && oldest !== undefined) resolvedEvents.delete(oldest);
    cards.get(ev.elicitation_id)?.resolve(ev);
  }
}

async function refresh() {
  try {
    await loadSessions();
    if (selected) await loadDetail(false);
  } catch (e) {
    $("sessions-status").textContent = e instanceof Error ? e.message : String(e);
    $("sessions-status").className = "error";
  }
}

function fromHash() {
  const m = /^#session=(.+)$/.exec(location.hash);
  return m ? decodeURIComponent(m[1]) : null;
}

boot(() => {
  const toggle = /** @type {HTMLInputElement} */ ($("only-pending"));
  toggle.checked = onlyPending;
  toggle.addEventListener("change", () => {
    onlyPending = toggle.checked;
    store.set("tollgate.onlyPending", onlyPending ? "1" : "0");
    refresh();
  });
  addEventListener("hashchange", () => select(fromHash()));
  selected = fromHash();
  document.body.classList.toggle("has-selection", Boolean(selected));
  if (selected) $("pane").replaceChildren(h("p", { class: "muted" }, "Loading…"));
  live({ sessions: "*", onEvent, onReady: refresh });
});
