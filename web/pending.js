// @ts-check
// Each session's pending elicitations, counted by the inbox itself (docs/protocol.md "Badges a
// subscriber counts itself"): the ids a session item lists, plus the requests heard since the socket
// subscribed, minus the resolutions heard since. The socket then carries no badge frames: half the
// frames per prompt. A session with more pending than its item lists ids is counted from its item,
// read again as its events come.
import { forgetOldest } from "./kept.js";

/** @typedef {import("./types").SessionItem} SessionItem */
/** @typedef {import("./types").RequestEvent} RequestEvent */
/** @typedef {import("./types").ResolvedEvent} ResolvedEvent */

/** elicitation_id -> session_id: requests heard since subscribed and not resolved yet */
const requested = new Map();
/** Ids resolved since subscribed: an event may come twice, and a resolved id never counts again. */
const resolved = new Set();
/** session_id -> the ids pending in it, as counted */
const pending = new Map();
/** session_id -> its count as its item said, for a session with more pending than its item lists */
const fromItem = new Map();
/** How many resolutions it remembers: a read older than this many resolutions is not expected. */
const REMEMBERED = 10_000;

/** A new subscription: what the one before heard is in every session read from now on. */
export function startOver() {
  requested.clear();
  resolved.clear();
}

/** The session as read: its count, from the ids it lists and what was heard since subscribed. @param {SessionItem} item @returns {number} */
export function counted(item) {
  const listed = item.pending_elicitation_ids ?? [];
  if (listed.length < item.pending_elicitations_count) {
    fromItem.set(item.session_id, item.pending_elicitations_count);
    return item.pending_elicitations_count;
  }
  fromItem.delete(item.session_id);
  const ids = new Set(listed);
  for (const [id, sessionId] of requested) if (sessionId === item.session_id) ids.add(id);
  for (const id of resolved) ids.delete(id);
  pending.set(item.session_id, ids);
  return ids.size;
}

/** A request or resolved event as heard (`countOf` gives its session's count then). @param {RequestEvent | ResolvedEvent} ev */
export function heard(ev) {
  const ids = pending.get(ev.session_id) ?? new Set();
  pending.set(ev.session_id, ids);
  if (ev.type === "response.elicitation_request") {
    if (resolved.has(ev.elicitation_id)) return;
    requested.set(ev.elicitation_id, ev.session_id);
    ids.add(ev.elicitation_id);
  } else {
    resolved.add(ev.elicitation_id);
    forgetOldest(resolved, REMEMBERED);
    requested.delete(ev.elicitation_id);
    ids.delete(ev.elicitation_id);
  }
}

/** Whether a session is counted from the events heard; if not, it is read again when they come. @param {string} sessionId */
export const countable = (sessionId) => !fromItem.has(sessionId);

/** A session's count as it stands. @param {string} sessionId */
export const countOf = (sessionId) => fromItem.get(sessionId) ?? pending.get(sessionId)?.size ?? 0;
