// The standalone approval page: approval.html?elicitation=<id> shows one card and keeps it live.
import { api, boot, createCard, h, live, seg, sessionsByIds } from "./lib.js";

const id = new URLSearchParams(location.search).get("elicitation");
const slot = () => document.getElementById("slot");
let card = null;
let verdict = null; // a resolution that may arrive while the card is still loading

async function load() {
  let e;
  try {
    e = await api(`/v1/elicitations/${seg(id)}`);
  } catch (err) {
    if (card) return; // keep what is on screen; the next reconnect tries again
    const text = err.status === 404 ? "There is no approval with this id." : err.message;
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
