// @ts-check
// The live socket: subscribes, keeps the connection open, and reconnects with backoff.
import { ApiError, api, seg } from "./api.js";
import { endpoints } from "./settings.js";
import { currentToken, signOut, whenSignedOut } from "./signin.js";

/** @typedef {import("./types").LiveEvent} LiveEvent */

const PING_MS = 5 * 60 * 1000; // API Gateway drops idle sockets after 10 minutes
const FALLBACK_MS = 1500;
/** A read that any valid human token may make: its 401 tells a refused token from a lost network. */
const TOKEN_CHECK = "/v1/sessions?limit=1";

/**
 * How long to wait before reconnect attempt `attempt` (0, 1, …): doubling from 1 s up to 30 s,
 * with jitter so a fleet of tabs does not come back at once.
 * @param {number} attempt @param {number} [random] in [0, 1)
 */
export const retryDelay = (attempt, random = Math.random()) => Math.round(Math.min(30_000, 1000 * 2 ** attempt) * (0.5 + random / 2));

/** The live socket's connection id while it is subscribed; a verdict given here names it. @type {string | null} */
let subscribedAs = null;
/** The page's handler of live events, which also hears the verdicts this tab gives. @type {((event: LiveEvent) => void) | null} */
let deliver = null;

/**
 * Gives a verdict from this tab. It names the tab's subscribed connection, so the server sends the tab
 * no resolved event for it (docs/protocol.md "A tab that answers"); the reply says the same, and
 * goes to the page as that event. Naming a connection that has closed meanwhile spares nothing:
 * the new one hears the event too, and a second hearing changes nothing.
 * @param {string} sessionId @param {{type: "approval", elicitation_id: string}} body
 */
export async function giveVerdict(sessionId, body) {
  const answering = subscribedAs;
  const reply = await api(`/v1/sessions/${seg(sessionId)}/events`, { method: "POST", body: answering ? { ...body, answering_connection_id: answering } : body });
  if (reply?.resolved_at) {
    const { status: _status, ...outcome } = reply;
    deliver?.({ type: "response.elicitation_resolved", session_id: sessionId, ...outcome });
  }
  return reply;
}

/** @param {string} state @param {string} text */
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
 * It subscribes without `session.badge` frames: the inbox counts for itself (pending.js), the approval page needs none.
 * @param {{sessions?: "*" | string[], onEvent: (event: LiveEvent) => void, onReady: () => void}} opts
 */
export function live({ sessions = "*", onEvent, onReady }) {
  /** @type {WebSocket | null} */
  let ws = null;
  let attempt = 0;
  let pingTimer = 0;
  let retryTimer = 0;
  let stopped = false;
  let everReady = false;

  deliver = onEvent;
  const ready = () => {
    everReady = true;
    onReady();
  };
  const fallback = setTimeout(() => {
    if (!everReady) ready();
  }, FALLBACK_MS);

  /** The socket closed before it subscribed, or after a frame of it was refused `unauthorized`: maybe the token's end (docs/protocol.md "Connections"). */
  let refused = false;

  /** @param {MessageEvent} m */
  function onMessage(m) {
    let frame;
    try {
      frame = JSON.parse(m.data);
    } catch {
      return;
    }
    if (frame.type === "subscribed") {
      attempt = 0;
      refused = false;
      subscribedAs = typeof frame.connection_id === "string" ? frame.connection_id : null;
      setConn("live", "Live");
      clearTimeout(fallback);
      ready();
    } else if (frame.type === "error") {
      console.warn("tollgate socket error", frame.code, frame.message);
      if (frame.code === "forbidden" || frame.code === "unauthorized") setConn("offline", `Not live: ${frame.message}`);
      refused ||= frame.code === "unauthorized";
    } else if (frame.type !== "pong") {
      onEvent(frame);
    }
  }

  function open() {
    clearTimeout(retryTimer);
    setConn("connecting", "Connecting…");
    const socket = new WebSocket(`${endpoints().ws}?token=${encodeURIComponent(currentToken())}`);
    ws = socket;
    refused = true; // until it subscribes
    socket.onopen = () => {
      socket.send(JSON.stringify({ action: "subscribe", sessions, badges: false }));
      clearInterval(pingTimer);
      pingTimer = setInterval(() => socket.readyState === WebSocket.OPEN && socket.send('{"action":"ping"}'), PING_MS);
    };
    socket.onmessage = onMessage;
    socket.onclose = () => {
      subscribedAs = null;
      clearInterval(pingTimer);
      if (stopped) return;
      const delay = retryDelay(attempt++);
      setConn("offline", `Offline, retrying in ${Math.ceil(delay / 1000)} s`);
      retryTimer = setTimeout(open, delay);
      // An expired token is refused at every reconnect: the HTTP API's 401 signs out (api.js) and asks for another.
      // A 403 is an identity given no tenant or role, which no reconnect mends: it is told why.
      if (refused) api(TOKEN_CHECK).catch((e) => e instanceof ApiError && e.status === 403 && signOut(`Tollgate does not let you in: ${e.message}`));
    };
  }

  const online = () => {
    if (ws?.readyState === WebSocket.CLOSED) {
      attempt = 0;
      open();
    }
  };
  addEventListener("online", online);
  open();
  whenSignedOut(() => {
    stopped = true;
    clearTimeout(retryTimer);
    clearTimeout(fallback);
    clearInterval(pingTimer);
    removeEventListener("online", online);
    ws?.close();
    setConn("offline", "Signed out");
  });
}
