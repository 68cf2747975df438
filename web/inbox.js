// @ts-check
// The approval inbox: the session tree (tree.js), and the open approvals of the chosen session.
import { api, ApiError, seg } from "./api.js";
import { createCard } from "./card.js";
import { decisionsList, showDecisions } from "./decisions.js";
import { byId, h } from "./dom.js";
import { live } from "./live.js";
import { forgetOldest } from "./kept.js";
import { notifyPrompt, offerNotifications, withdrawPrompt } from "./notify.js";
import { countable, countOf, heard, startOver } from "./pending.js";
import { store } from "./settings.js";
import { boot } from "./signin.js";
import { ensureKnown, know, label, loadSessions, onChoose, renderTree, reread, sessions, setBadge, view, within } from "./tree.js";

/** @typedef {import("./types").SessionItem} SessionItem */
/** @typedef {import("./types").SessionDetail} SessionDetail */
/** @typedef {import("./types").RequestEvent} RequestEvent */
/** @typedef {import("./types").ResolvedEvent} ResolvedEvent */
/** @typedef {import("./types").LiveEvent} LiveEvent */
/** @typedef {import("./card.js").Card} Card */

/** @type {Map<string, Card>} elicitation_id -> card, for the session on screen */
const cards = new Map();
/** @type {Map<string, ResolvedEvent>} recent resolutions, for cards that arrive after their verdict */
const resolvedEvents = new Map();
/** Prompts whose card was put on screen while the tab was in front: the human has seen them, no notification needed. */
const seenOnScreen = new Set();
let detailSeq = 0;
/** How many recent resolutions and seen prompts the inbox remembers. */
const REMEMBERED = 500;

const $ = byId;
/** @param {{created_at?: string}} a @param {{created_at?: string}} b */
const byCreated = (a, b) => String(a.created_at).localeCompare(String(b.created_at));

// ---------------------------------------------------------------- the chosen session

/** @param {string | null} id */
function select(id) {
  if (id === view.selected) return;
  view.selected = id;
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
    const sub = ev.session_id !== view.selected;
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
  if (document.visibilityState === "visible") seenOnScreen.add(card.id);
  forgetOldest(seenOnScreen, REMEMBERED);
  list.querySelector(".none")?.remove();
  const later = [...cards.values()].find((c) => c.el.isConnected && byCreated(c.event, card.event) > 0);
  list.insertBefore(h("li", {}, card.el), later ? later.el.parentElement : null);
}

/** @param {boolean} fresh true when the session was just chosen */
async function loadDetail(fresh) {
  const id = view.selected;
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
  know(item);
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
    api(`/v1/elicitations/${seg(card.id)}`)
      .then((e) => e.verdict && card.resolve(e.verdict))
      .catch(() => {});
  }
  if (!cards.size) $("cards").append(h("li", { class: "none muted" }, "Nothing is waiting in this session or its sub-agents."));
  renderTree();
  refreshDecisions();
}

/** The chosen session's recent decisions, read again after each one. */
function refreshDecisions() {
  const id = view.selected;
  if (id) showDecisions(id, label, () => view.selected === id).catch(() => {});
}

/** @param {SessionItem} item */
function renderPane(item) {
  const parent = item.parent_session_id;
  $("pane").replaceChildren(
    h("button", { type: "button", class: "back quiet", onclick: () => select(null) }, "← Sessions"),
    h(
      "header",
      { class: "pane-head" },
      h("h1", {}, item.title || item.session_id),
      h(
        "p",
        { class: "muted meta" },
        item.title ? h("code", {}, item.session_id) : null,
        parent ? [item.title ? " · " : "", "sub-agent of ", h("a", { href: `#session=${encodeURIComponent(parent)}` }, label(parent))] : null,
      ),
    ),
    h("h2", { class: "visually-hidden" }, "Open approvals"),
    h("ol", { id: "cards", class: "cards" }),
    h("h2", { class: "decisions-head" }, "Recent decisions"),
    decisionsList(),
  );
}

// ---------------------------------------------------------------- live events

/** A session's badge after an event of it; one counted from its item is read again first (a failed read waits for the next event). @param {string} id */
async function showCount(id) {
  if (!countable(id)) await reread(id).catch(() => {});
  setBadge(id, countOf(id));
}

/** @param {LiveEvent} ev */
async function onEvent(ev) {
  // Counted as it arrives, so a session read while it is on its way counts it too.
  heard(ev);
  if (ev.type === "response.elicitation_request") {
    // Judged as it arrives: a prompt that came while the tab was in front is no news once the tab goes behind,
    // nor is one whose card a snapshot already put in front of the human before this event came.
    const news = document.visibilityState === "hidden" && !seenOnScreen.has(ev.elicitation_id);
    await ensureKnown(ev.session_id);
    if (view.selected && within(ev.session_id, view.selected)) addCard(ev);
    // A verdict heard first (pushed ahead of its prompt, or while the session was being looked up) found nothing to withdraw: show nothing.
    if (news && !resolvedEvents.has(ev.elicitation_id)) notifyPrompt(ev, label(ev.session_id)).catch((e) => console.warn("tollgate: no notification", e));
    await showCount(ev.session_id);
  } else if (ev.type === "response.elicitation_resolved") {
    resolvedEvents.set(ev.elicitation_id, ev);
    forgetOldest(resolvedEvents, REMEMBERED);
    cards.get(ev.elicitation_id)?.resolve(ev);
    withdrawPrompt(ev.elicitation_id).catch(() => {});
    if (view.selected && within(ev.session_id, view.selected)) refreshDecisions();
    await showCount(ev.session_id);
  }
}

async function refresh() {
  try {
    await loadSessions();
    if (view.selected) await loadDetail(false);
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
  toggle.checked = view.onlyPending;
  toggle.addEventListener("change", () => {
    view.onlyPending = toggle.checked;
    store.set("tollgate.onlyPending", view.onlyPending ? "1" : "0");
    refresh();
  });
  onChoose(select);
  addEventListener("hashchange", () => select(fromHash()));
  view.selected = fromHash();
  document.body.classList.toggle("has-selection", Boolean(view.selected));
  if (view.selected) $("pane").replaceChildren(h("p", { class: "muted" }, "Loading…"));
  offerNotifications();
  // No badge frames: the inbox counts them from the sessions' ids and the events it hears since each subscribe.
  live({
    sessions: "*",
    onEvent,
    onReady: () => {
      startOver();
      refresh();
    },
  });
});
