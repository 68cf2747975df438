// @ts-check
// The standalone approval page: approval.html?elicitation=<id> shows one card and keeps it live;
// opened from an approval link (#link=…) it needs no sign-in (link.js).
import { api, ApiError, seg, sessionsByIds } from "./api.js";
import { createCard } from "./card.js";
import { byId, h } from "./dom.js";
import { linkInAddress, openByLink } from "./link.js";
import { live } from "./live.js";
import { boot } from "./signin.js";

/** @typedef {import("./types").Verdict} Verdict */
/** @typedef {import("./types").ElicitationReply} ElicitationReply */

const id = new URLSearchParams(location.search).get("elicitation") ?? "";
const slot = () => byId("slot");
/** @type {import("./card.js").Card | null} */
let card = null;
/** @type {Verdict | null} a resolution that may arrive while the card is still loading */
let verdict = null;

async function load() {
  /** @type {ElicitationReply} */
  let e;
  try {
    e = await api(`/v1/elicitations/${seg(id)}`);
  } catch (err) {
    if (card) return; // keep what is on screen; the next reconnect tries again
    const text = err instanceof ApiError && err.status === 404 ? "There is no approval with this id." : err instanceof Error ? err.message : String(err);
    return slot().replaceChildren(h("p", { class: "error", role: "alert" }, text));
  }
  if (!card) {
    const [session] = await sessionsByIds([e.session_id]).catch(() => []);
    card = createCard(e.event, {
      label: session?.title || e.session_id,
      sessionHref: `./#session=${encodeURIComponent(e.session_id)}`,
      standalone: true,
    });
    slot().replaceChildren(card.el);
    const message = e.event?.params?.message || id;
    document.title = `${message.length > 60 ? `${message.slice(0, 59)}…` : message} · Tollgate`;
  }
  if (e.status === "resolved" && e.verdict) card.resolve(e.verdict);
  else if (verdict) card.resolve(verdict);
}

const link = linkInAddress();
if (link) void openByLink(link);
else
  boot(() => {
    if (!id) {
      slot().replaceChildren(h("p", { class: "error", role: "alert" }, "This address names no approval (expected ?elicitation=<id>)."));
      return;
    }
    live({
      sessions: "*",
      onReady: load,
      onEvent: (ev) => {
        if (ev.type !== "response.elicitation_resolved" || ev.elicitation_id !== id) return;
        verdict = ev;
        card?.resolve(ev);
      },
    });
  });
