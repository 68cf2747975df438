// @ts-check
// An approval card: the question, its answer form, and then the verdict, whoever gave it.
import { ApiError } from "./api.js";
import { fill, h, nextId } from "./dom.js";
import { displayValue } from "./fields.js";
import { buildForm } from "./form.js";
import { giveVerdict } from "./live.js";
import { shareControl } from "./share.js";
import { claims } from "./signin.js";
import { timeEl } from "./time.js";
import { verdictWords } from "./verdict.js";

/** The longest reason a verdict may carry (docs/protocol.md). */
const MESSAGE_LENGTH = 2000;

/** @typedef {import("./types").RequestEvent} RequestEvent */
/** @typedef {import("./types").RequestedSchema} RequestedSchema */
/** @typedef {import("./types").Verdict} Verdict */
/** @typedef {import("./types").VerdictAction} VerdictAction */
/**
 * submit: how the verdict goes out (default: the session's events with the human's token); by: who the card says answered.
 * @typedef {{label?: string, sub?: boolean, sessionHref?: string | null, standalone?: boolean, submit?: (body: {type: "approval", elicitation_id: string, action: VerdictAction, content?: Record<string, unknown>, message?: string}) => Promise<any>, by?: string}} CardOptions
 */
/** @typedef {{el: HTMLElement, id: string, event: RequestEvent, resolve: (v: Verdict, o?: {note?: string, provisional?: boolean}) => void, readonly resolved: boolean}} Card */

/**
 * "Accepted — answered by user_42, 2 minutes ago" as nodes, plus the submitted content.
 * @param {Verdict} v @param {string | undefined} note @param {RequestedSchema | undefined} schema
 */
function verdictNodes(v, note, schema) {
  const words = verdictWords(v);
  const nodes = [
    note ? h("span", { class: "note" }, note) : null,
    h("strong", {}, words.action),
    ` — ${words.how} `,
    h("span", { class: "by" }, v.resolved_by || "unknown"),
    v.resolved_at ? [", ", timeEl(v.resolved_at)] : null,
    v.message ? h("q", { class: "said", "data-testid": "said" }, v.message) : null,
  ];
  const content = v.content && typeof v.content === "object" ? Object.entries(v.content) : [];
  if (content.length) {
    nodes.push(
      h(
        "dl",
        { class: "content" },
        content.map(([k, val]) => [h("dt", {}, schema?.properties[k]?.title || k), h("dd", {}, displayValue(schema?.properties[k], val))]),
      ),
    );
  }
  return nodes;
}

/**
 * A URL-mode request: the full address and where it leads, for the human's consent (`ask`), and the
 * link to open once they consented (`open`). The page never loads the address by itself.
 * @param {string} url
 */
function urlRequest(url) {
  const parsed = URL.canParse(url) ? new URL(url) : null;
  const plain = parsed?.protocol === "http:";
  const host = parsed?.host ?? "an address that does not parse";
  const ask = h(
    "div",
    { class: "url-request" },
    h("p", {}, "Asks you to open a page on ", h("strong", { class: "host" }, host), plain ? h("span", { class: "warn" }, " (not encrypted)") : null, ":"),
    h("p", { class: "url" }, h("code", {}, url)),
    h("p", { class: "help" }, "Consenting tells the agent you will continue on that page; Tollgate does not open or fetch it."),
  );
  const open = parsed ? h("p", { class: "open-url" }, h("a", { href: parsed.href, target: "_blank", rel: "noopener noreferrer" }, `Open ${host} ↗`)) : null;
  return { ask, open };
}

/** @param {RequestEvent} event @param {CardOptions} opts */
function cardHead(event, { label, sub = false, sessionHref, standalone = false }) {
  const id = event.elicitation_id;
  const name = label || event.session_id;
  return h(
    "header",
    { class: "card-head" },
    h("span", { class: `session${sub ? " sub" : ""}` }, sub ? h("span", { class: "tag" }, "sub-agent") : null, sessionHref ? h("a", { href: sessionHref }, name) : name),
    event.created_at ? h("span", { class: "asked" }, timeEl(event.created_at, "asked ")) : null,
    event.deadline ? h("span", { class: "deadline" }, timeEl(event.deadline, "due ")) : null,
    standalone ? null : h("a", { class: "permalink", href: `approval.html?elicitation=${encodeURIComponent(id)}`, title: "Open this approval on its own page" }, "Open ↗"),
  );
}

/**
 * An approval card for a response.elicitation_request event; resolve() takes a verdict or a
 * resolved event. opts: label (session name), sub (true when it comes from a sub-agent),
 * sessionHref, standalone.
 * @param {RequestEvent} event @param {CardOptions} [opts]
 * @returns {Card}
 */
export function createCard(event, opts = {}) {
  const id = event.elicitation_id;
  const params = event.params || {};
  const schema = params.requestedSchema && typeof params.requestedSchema === "object" ? params.requestedSchema : undefined;
  const answers = schema ? buildForm(schema) : undefined;
  const link = params.mode === "url" ? urlRequest(params.url) : undefined;
  const msgId = nextId("msg");
  let settled = false; // an authoritative verdict is shown
  /** @type {{action: VerdictAction, content?: Record<string, unknown>, by: string} | null} */
  let answered = null; // what we submitted (resolved events do not carry the content)
  /** @type {HTMLElement | null} */
  let focusedAtAnswer = null; // the control the human answered from (busy() takes its focus away)

  const error = h("p", { class: "error", role: "alert", hidden: true });
  const verdict = h("div", { class: "verdict", "data-testid": `verdict-${id}`, "aria-live": "polite", tabindex: "-1", hidden: true });
  const accept = h("button", { type: "submit", class: "primary", "data-testid": `accept-${id}` }, link ? "Consent" : schema ? "Accept" : "Approve");
  const decline = h("button", { type: "button", "data-testid": `decline-${id}`, onclick: () => answer("decline") }, "Decline");
  const reasonId = nextId("reason");
  const reason = /** @type {HTMLInputElement} */ (
    h("input", {
      type: "text",
      id: reasonId,
      maxlength: String(MESSAGE_LENGTH),
      autocomplete: "off",
      "data-testid": `reason-${id}`,
      placeholder: "Why? The agent is told (optional)",
      // Enter would submit the form, which accepts: a reason typed for a decline must not approve.
      onkeydown: (/** @type {KeyboardEvent} */ e) => {
        if (e.key === "Enter" && !e.isComposing) e.preventDefault();
      },
    })
  );
  const fields = h(
    "fieldset",
    { class: "fields" },
    h("legend", { class: "visually-hidden" }, "Answer"),
    link?.ask,
    answers?.nodes,
    h("div", { class: "reason" }, h("label", { for: reasonId }, "Reason (optional)"), reason),
    h("div", { class: "actions" }, accept, decline),
    // A card opened from a link answers with it; it has no token to share another.
    opts.submit ? null : shareControl(id),
  );
  const form = h(
    "form",
    {
      onsubmit: (/** @type {SubmitEvent} */ e) => {
        e.preventDefault();
        answer("accept");
      },
    },
    fields,
  );
  if (schema) form.setAttribute("aria-label", "Answer form");
  const head = cardHead(event, opts);

  const el = h(
    "article",
    { class: "card", "data-testid": `card-${id}`, "data-state": "pending", "aria-labelledby": msgId },
    head,
    h("p", { class: "message", id: msgId }, params.message || "(no message)"),
    form,
    error,
    verdict,
  );

  /** @param {boolean} on */
  function busy(on) {
    fields.disabled = on;
    el.setAttribute("aria-busy", on ? "true" : "false");
  }

  /** @param {Verdict} v @param {{note?: string, provisional?: boolean}} [o] */
  function resolve(v, { note, provisional = false } = {}) {
    if (settled && provisional) return; // the server's own event already came
    // The form goes away: a human whose focus was in it keeps their place at the verdict, not at the page's top.
    const refocus = focusedAtAnswer !== null || form.contains(document.activeElement);
    settled = settled || !provisional;
    if (v.content === undefined && answered?.action === v.action && v.resolved_by === answered.by) v = { ...v, content: answered.content };
    el.dataset.state = "resolved";
    el.dataset.action = v.action || "";
    el.removeAttribute("aria-busy");
    form.remove();
    head.querySelector(".deadline")?.remove();
    error.hidden = true;
    fill(verdict, verdictNodes(v, note, schema));
    if (link?.open && v.action === "accept") verdict.append(link.open);
    verdict.hidden = false;
    if (refocus) verdict.focus();
  }

  /** @param {VerdictAction} action */
  async function answer(action) {
    const content = action === "accept" ? answers?.read() : undefined;
    if (action === "accept" && !form.reportValidity()) return;
    const message = reason.value.trim() || undefined;
    const body = { type: /** @type {const} */ ("approval"), elicitation_id: id, action, content, message };
    focusedAtAnswer = document.activeElement instanceof HTMLElement && form.contains(document.activeElement) ? document.activeElement : null;
    busy(true);
    error.hidden = true;
    const me = opts.by ?? (claims().sub || "you");
    answered = { action, content, by: me };
    try {
      const r = await (opts.submit ? opts.submit(body) : giveVerdict(event.session_id, body));
      // The reply is the verdict that stands; the card names its giver as this page knows them.
      resolve(
        {
          action: r?.action || action,
          content,
          message: r?.message ?? message,
          reason: r?.reason || "answered",
          resolved_by: opts.by ?? r?.resolved_by ?? me,
          resolved_at: r?.resolved_at || new Date().toISOString(),
        },
        { provisional: true },
      );
    } catch (e) {
      if (e instanceof ApiError && e.status === 409 && e.verdict) {
        resolve(e.verdict, { note: `Already answered by ${e.verdict.resolved_by || "someone else"}. ` });
      } else {
        answered = null;
        error.textContent = e instanceof Error ? e.message : String(e);
        error.hidden = false;
        busy(false);
        focusedAtAnswer?.focus();
        focusedAtAnswer = null;
      }
    }
  }

  return {
    el,
    id,
    event,
    resolve,
    get resolved() {
      return el.dataset.state === "resolved";
    },
  };
}
