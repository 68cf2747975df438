// @ts-check
// The standalone page opened from an approval link (approval.html?elicitation=<id>#link=<token>): no
// sign-in; the link reads its one elicitation and gives it one verdict. The link stays in the
// fragment, which the browser never sends to a server.
import { ApiError, call } from "./api.js";
import { createCard } from "./card.js";
import { byId, h } from "./dom.js";
import { endpoints } from "./settings.js";
import { keepTimesFresh } from "./time.js";

/** @typedef {import("./types").ElicitationReply} ElicitationReply */

/** The approval link in the page's address, or "" when the page was opened without one. */
export const linkInAddress = () => new URLSearchParams(location.hash.slice(1)).get("link") ?? "";

/** @param {unknown} err */
function refusal(err) {
  if (err instanceof ApiError && err.status === 401) return "This approval link cannot be used: it has expired, or it is not a whole, unchanged link.";
  if (err instanceof ApiError && err.status === 404) return "There is no approval for this link.";
  return err instanceof Error ? err.message : String(err);
}

/** Shows the link's elicitation and lets its holder answer it. @param {string} link */
export async function openByLink(link) {
  endpoints();
  // The holder of a link has no sign-in: the inbox's sessions are not theirs to go back to.
  for (const id of ["conn", "signout", "back"]) byId(id).hidden = true;
  byId("who").textContent = "Opened from an approval link";
  byId("app").hidden = false;
  keepTimesFresh();
  const slot = byId("slot");
  /** @type {ElicitationReply} */
  let e;
  try {
    e = await call("/v1/link", link);
  } catch (err) {
    return slot.replaceChildren(h("p", { class: "error", role: "alert" }, refusal(err)));
  }
  const card = createCard(e.event, {
    label: e.session_id,
    standalone: true,
    by: "you, through this link",
    submit: ({ action, content, message }) => call("/v1/link/verdict", link, { method: "POST", body: { action, content, message } }),
  });
  slot.replaceChildren(card.el);
  if (e.status === "resolved" && e.verdict) card.resolve(e.verdict);
}
