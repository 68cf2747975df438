// Shared by the inbox (index.html) and the standalone approval page (approval.html):
// token handling, API calls, the live socket, and approval cards.
// All text from the server goes into the page through textContent or attributes, never as HTML.

const TOKEN_KEY = "tollgate.token";
const PING_MS = 5 * 60 * 1000; // API Gateway drops idle sockets after 10 minutes
const memory = new Map(); // stands in for localStorage when the browser refuses it

const store = {
  get: (k) => { try { return localStorage.getItem(k); } catch { return memory.get(k) ?? null; } },
  set: (k, v) => { try { localStorage.setItem(k, v); } catch { memory.set(k, v); } },
  del: (k) => { try { localStorage.removeItem(k); } catch { memory.delete(k); } },
};
export { store };

// ---------------------------------------------------------------- DOM helper

/** h("button", {class: "x", onclick: fn}, "text", childNode) — children are text or nodes. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === false || v === null || v === undefined) continue;
    if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

let uid = 0;
const nextId = (prefix) => `${prefix}-${++uid}`;

// ---------------------------------------------------------------- token

let token = "";

/** The token's claims, decoded without verification (only used for display). */
export function claims() {
  try {
    const part = token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
    return JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(part), (c) => c.charCodeAt(0))));
  } catch {
    return {};
  }
}

/** A setting given once as `?name=` in the page URL, then kept (and taken out of the visible URL). */
function takeSetting(name, key) {
  const url = new URL(location.href);
  const fromUrl = url.searchParams.get(name);
  if (fromUrl) {
    store.set(key, fromUrl.trim());
    url.searchParams.delete(name);
    history.replaceState(history.state, "", url.pathname + url.search + url.hash);
  }
  return store.get(key) || "";
}

const takeToken = () => takeSetting("token", TOKEN_KEY);

// Served by the local runtime, the APIs share the page's origin. In the cloud they live on API
// Gateway: open the page once with `?api=<HttpUrl>&ws=<WebSocketUrl>` (the stack's outputs).
const apiBase = takeSetting("api", "tollgate.api").replace(/\/$/, "");
const wsBase = takeSetting("ws", "tollgate.ws") || `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`;

function showSignin(message) {
  document.getElementById("app").hidden = true;
  for (const id of ["conn", "signout"]) document.getElementById(id).hidden = true;
  document.getElementById("who").textContent = "";
  const box = document.getElementById("signin");
  const area = h("textarea", { id: "token-input", name: "token", rows: 5, required: true, spellcheck: "false", autocomplete: "off", placeholder: "eyJhbGciOiJIUzI1NiIs…" });
  box.replaceChildren(
    h("form", {
      class: "signin",
      onsubmit: (e) => {
        e.preventDefault();
        const value = area.value.trim();
        if (!value) return;
        store.set(TOKEN_KEY, value);
        location.reload();
      },
    },
      h("h1", {}, "Sign in to the approval inbox"),
      message ? h("p", { class: "error", role: "alert" }, message) : null,
      h("label", { for: "token-input" }, "Paste a human token (JWT)"),
      h("p", { class: "help" }, "The local runtime prints ready-made tokens when it starts. You can also open this page with ?token=… in the address."),
      area,
      h("button", { type: "submit", class: "primary" }, "Use this token"),
    ),
  );
  box.hidden = false;
  area.focus();
}

let stopLive = () => {};

/** Drops the token and asks for another one. */
export function signOut(message) {
  stopLive();
  store.del(TOKEN_KEY);
  token = "";
  showSignin(message);
}

/** Reads the token (URL, then localStorage), shows who is signed in, then runs start(). */
export function boot(start) {
  token = takeToken();
  document.getElementById("signout")?.addEventListener("click", () => signOut());
  if (!token) return showSignin();
  const c = claims();
  const who = document.getElementById("who");
  who.textContent = c.sub ? `${c.sub}${c.role ? ` · ${c.role}` : ""}` : "";
  if (c.role === "runner") who.append(h("span", { class: "warn" }, " (runner tokens cannot read the inbox)"));
  document.getElementById("app").hidden = false;
  start();
}

// ---------------------------------------------------------------- HTTP API

export class ApiError extends Error {
  constructor(status, error) {
    super(error?.message || `Request failed (HTTP ${status})`);
    this.status = status;
    this.code = error?.code;
    this.verdict = error?.verdict;
  }
}

/** A path segment: ids are plain by protocol, anything else gets encoded. */
export const seg = (id) => (/^[A-Za-z0-9_.:-]+$/.test(id) ? id : encodeURIComponent(id));

/** Calls the API with the bearer token; throws ApiError with the server's message. */
export async function api(path, { method = "GET", body } = {}) {
  const headers = { authorization: `Bearer ${token}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  let res;
  try {
    res = await fetch(`${apiBase}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(0, { code: "network", message: "Cannot reach Tollgate. Check your connection." });
  }
  const data = await res.json().catch(() => null);
  if (!res.ok) {
    const err = new ApiError(res.status, data?.error);
    if (res.status === 401) signOut(`Your token was refused: ${err.message}`);
    throw err;
  }
  return data;
}

/** Session items for these ids (unknown ids come back with a zero count). */
export async function sessionsByIds(ids) {
  const out = [];
  for (let i = 0; i < ids.length; i += 100) {
    const q = new URLSearchParams({ ids: ids.slice(i, i + 100).join(",") });
    out.push(...(await api(`/v1/sessions?${q}`)).sessions);
  }
  return out;
}

// ---------------------------------------------------------------- live socket

function setConn(state, text) {
  const el = document.getElementById("conn");
  if (!el) return;
  el.dataset.state = state;
  el.textContent = text;
}

/**
 * Opens /ws, subscribes, and keeps it open: pings every 5 minutes, reconnects with backoff.
 * onReady() runs after every (re)subscribe so the page can re-fetch what it may have missed,
 * and once after 1.5 s if the socket is not up by then, so the page still shows something.
 */
export function live({ sessions = "*", onEvent, onReady }) {
  let ws = null;
  let attempt = 0;
  let pingTimer = 0;
  let retryTimer = 0;
  let stopped = false;
  let everReady = false;

  const fallback = setTimeout(() => { if (!everReady) { everReady = true; onReady(); } }, 1500);

  function open() {
    clearTimeout(retryTimer);
    setConn("connecting", "Connecting…");
    ws = new WebSocket(`${wsBase}?token=${encodeURIComponent(token)}`);
    ws.onopen = () => {
      ws.send(JSON.stringify({ action: "subscribe", sessions }));
      clearInterval(pingTimer);
      pingTimer = setInterval(() => ws.readyState === WebSocket.OPEN && ws.send('{"action":"ping"}'), PING_MS);
    };
    ws.onmessage = (m) => {
      let frame;
      try { frame = JSON.parse(m.data); } catch { return; }
      if (frame.type === "subscribed") {
        attempt = 0;
        setConn("live", "Live");
        clearTimeout(fallback);
        everReady = true;
        onReady();
      } else if (frame.type === "error") {
        console.warn("tollgate socket error", frame.code, frame.message);
        if (frame.code === "forbidden" || frame.code === "unauthorized") setConn("offline", "Not live: " + frame.message);
      } else if (frame.type !== "pong") {
        onEvent(frame);
      }
    };
    ws.onclose = () => {
      clearInterval(pingTimer);
      if (stopped) return;
      const delay = Math.round(Math.min(30_000, 1000 * 2 ** attempt++) * (0.5 + Math.random() / 2));
      setConn("offline", `Offline, retrying in ${Math.ceil(delay / 1000)} s`);
      retryTimer = setTimeout(open, delay);
    };
  }

  const online = () => { if (ws?.readyState === WebSocket.CLOSED) { attempt = 0; open(); } };
  addEventListener("online", online);
  open();
  stopLive = () => {
    stopped = true;
    clearTimeout(retryTimer);
    clearTimeout(fallback);
    clearInterval(pingTimer);
    removeEventListener("online", online);
    ws?.close();
    setConn("offline", "Signed out");
  };
}

// ---------------------------------------------------------------- time

const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
const UNITS = [["day", 86400], ["hour", 3600], ["minute", 60], ["second", 1]];

export function relative(iso) {
  const secs = (Date.parse(iso) - Date.now()) / 1000;
  if (!Number.isFinite(secs)) return "";
  if (Math.abs(secs) < 45) return secs < 0 ? "just now" : "in a few seconds";
  for (const [unit, size] of UNITS) {
    if (Math.abs(secs) >= size || unit === "second") return rtf.format(Math.round(secs / size), unit);
  }
  return "";
}

/** A <time> that keeps its relative text fresh (see the interval below). */
export function timeEl(iso, prefix = "") {
  const d = new Date(iso);
  return h("time", { datetime: iso, title: Number.isNaN(+d) ? "" : d.toLocaleString(), "data-prefix": prefix }, prefix + relative(iso));
}

setInterval(() => {
  for (const t of document.querySelectorAll("time[datetime]")) t.textContent = (t.dataset.prefix || "") + relative(t.dateTime);
}, 30_000);

// ---------------------------------------------------------------- approval cards

const ACTIONS = { accept: "Accepted", decline: "Declined", cancel: "Cancelled" };
const REASONS = {
  answered: "answered by",
  cancelled: "cancelled by",
  timeout: "deadline passed, resolved by",
  runner_gone: "its runner went away, resolved by",
};

/** "Accepted — answered by user_42, 2 minutes ago" as nodes, plus the submitted content. */
function verdictNodes(v, note, schema) {
  const nodes = [
    h("strong", {}, ACTIONS[v.action] || v.action),
    ` — ${REASONS[v.reason] || `${v.reason || "resolved"}, by`} `,
    h("span", { class: "by" }, v.resolved_by || "unknown"),
  ];
  if (v.resolved_at) nodes.push(", ", timeEl(v.resolved_at));
  if (note) nodes.unshift(h("span", { class: "note" }, note));
  const content = v.content && typeof v.content === "object" ? Object.entries(v.content) : [];
  if (content.length) {
    nodes.push(h("dl", { class: "content" }, content.map(([k, val]) => [
      h("dt", {}, schema?.properties?.[k]?.title || k),
      h("dd", {}, typeof val === "boolean" ? (val ? "yes" : "no") : String(val)),
    ])));
  }
  return nodes;
}

function buildField(name, prop, required) {
  const id = nextId("field");
  const helpId = prop.description ? `${id}-help` : null;
  const common = { id, name, required: required && prop.type !== "boolean", "aria-describedby": helpId };
  let input;
  if (prop.type === "boolean") {
    input = h("input", { ...common, type: "checkbox", checked: prop.default === true });
  } else if (Array.isArray(prop.enum)) {
    const names = Array.isArray(prop.enumNames) ? prop.enumNames : [];
    input = h("select", common,
      h("option", { value: "", disabled: required, selected: prop.default === undefined }, required ? "Choose…" : "—"),
      prop.enum.map((v, i) => h("option", { value: v, selected: prop.default === v }, names[i] ?? v)));
  } else if (prop.type === "number" || prop.type === "integer") {
    input = h("input", {
      ...common, type: "number", inputmode: prop.type === "integer" ? "numeric" : "decimal",
      step: prop.type === "integer" ? 1 : "any", min: prop.minimum, max: prop.maximum, value: prop.default,
    });
  } else {
    const types = { email: "email", uri: "url", date: "date", "date-time": "datetime-local" };
    input = h("input", {
      ...common, type: types[prop.format] || "text", minlength: prop.minLength, maxlength: prop.maxLength,
      value: prop.default, autocomplete: "off",
    });
  }
  const label = h("label", { for: id }, prop.title || name, required ? h("span", { class: "req", "aria-hidden": "true" }, " *") : null);
  const help = helpId ? h("p", { class: "help", id: helpId }, prop.description) : null;
  const cls = prop.type === "boolean" ? "field check" : "field";
  return prop.type === "boolean" ? h("div", { class: cls }, input, label, help) : h("div", { class: cls }, label, input, help);
}

function readForm(form, schema) {
  const content = {};
  for (const [name, prop] of Object.entries(schema.properties || {})) {
    const input = form.elements.namedItem(name);
    if (!input) continue;
    if (prop.type === "boolean") content[name] = input.checked;
    else if (input.value === "") continue;
    else if (prop.type === "integer") content[name] = parseInt(input.value, 10);
    else if (prop.type === "number") content[name] = Number(input.value);
    else content[name] = input.value;
  }
  return content;
}

/**
 * An approval card for a response.elicitation_request event.
 * Returns {el, resolve(verdict)}; resolve() takes a verdict or a resolved event.
 * opts: label (session name), sub (true when it comes from a sub-agent), sessionHref, standalone.
 */
export function createCard(event, { label, sub = false, sessionHref, standalone = false } = {}) {
  const id = event.elicitation_id;
  const params = event.params || {};
  const schema = params.requestedSchema && typeof params.requestedSchema === "object" ? params.requestedSchema : null;
  const props = Object.entries(schema?.properties || {});
  const required = new Set(Array.isArray(schema?.required) ? schema.required : []);
  const msgId = nextId("msg");
  let settled = false; // an authoritative verdict is shown
  let answered = null; // the content we submitted (resolved events do not carry it)

  const error = h("p", { class: "error", role: "alert", hidden: true });
  const verdict = h("div", { class: "verdict", "data-testid": `verdict-${id}`, "aria-live": "polite", hidden: true });
  const accept = h("button", { type: "submit", class: "primary", "data-testid": `accept-${id}` }, schema ? "Accept" : "Approve");
  const decline = h("button", { type: "button", "data-testid": `decline-${id}`, onclick: () => answer("decline") }, "Decline");
  const fields = h("fieldset", { class: "fields" },
    h("legend", { class: "visually-hidden" }, "Answer"),
    props.map(([name, prop]) => buildField(name, prop || {}, required.has(name))),
    h("div", { class: "actions" }, accept, decline));
  const form = h("form", { onsubmit: (e) => { e.preventDefault(); answer("accept"); } }, fields);
  if (schema) form.setAttribute("aria-label", "Answer form");
  const deadline = event.deadline ? h("span", { class: "deadline" }, timeEl(event.deadline, "due ")) : null;

  const el = h("article", { class: "card", "data-testid": `card-${id}`, "data-state": "pending", "aria-labelledby": msgId },
    h("header", { class: "card-head" },
      h("span", { class: "session" + (sub ? " sub" : "") },
        sub ? h("span", { class: "tag" }, "sub-agent") : null,
        sessionHref ? h("a", { href: sessionHref }, label || event.session_id) : label || event.session_id),
      event.created_at ? h("span", { class: "asked" }, timeEl(event.created_at, "asked ")) : null,
      deadline,
      standalone ? null : h("a", { class: "permalink", href: `approval.html?elicitation=${encodeURIComponent(id)}`, title: "Open this approval on its own page" }, "Open ↗"),
    ),
    h("p", { class: "message", id: msgId }, params.message || "(no message)"),
    form, error, verdict);

  function busy(on) {
    fields.disabled = on;
    el.setAttribute("aria-busy", on ? "true" : "false");
  }

  function resolve(v, { note, provisional = false } = {}) {
    if (settled && provisional) return; // the server's own event already came
    settled = settled || !provisional;
    if (v.content === undefined && answered?.action === v.action && v.resolved_by === answered.by) v = { ...v, content: answered.content };
    el.dataset.state = "resolved";
    el.dataset.action = v.action || "";
    el.removeAttribute("aria-busy");
    form.remove();
    deadline?.remove();
    error.hidden = true;
    verdict.replaceChildren(...verdictNodes(v, note, schema));
    verdict.hidden = false;
  }

  async function answer(action) {
    if (action === "accept" && !form.reportValidity()) return;
    const body = { type: "approval", elicitation_id: id, action };
    if (action === "accept" && schema) body.content = readForm(form, schema);
    busy(true);
    error.hidden = true;
    const me = claims().sub || "you";
    answered = { action, content: body.content, by: me };
    try {
      const r = await api(`/v1/sessions/${seg(event.session_id)}/events`, { method: "POST", body });
      resolve({ action: r?.action || action, content: body.content, reason: "answered", resolved_by: me, resolved_at: new Date().toISOString() }, { provisional: true });
    } catch (e) {
      if (e.status === 409 && e.verdict) {
        resolve(e.verdict, { note: `Already answered by ${e.verdict.resolved_by || "someone else"}. ` });
      } else {
        answered = null;
        error.textContent = e.message;
        error.hidden = false;
        busy(false);
      }
    }
  }

  return { el, id, event, resolve, get resolved() { return el.dataset.state === "resolved"; } };
}
