// @ts-check
// "Share a link" on a pending card: an approval link for that one prompt, to paste into a chat or an
// e-mail; whoever opens it answers without signing in, until the deadline (docs/protocol.md "Approval links").
import { api, seg } from "./api.js";
import { h } from "./dom.js";

/** The control, for the card of elicitation `id`. @param {string} id */
export function shareControl(id) {
  const slot = h("div", { class: "share" });
  const button = h("button", { type: "button", class: "quiet", "data-testid": `share-${id}`, onclick: () => void share() }, "Share a link");
  slot.append(button);

  async function share() {
    button.disabled = true;
    try {
      const link = await api(`/v1/elicitations/${seg(id)}/link`, { method: "POST", body: {} });
      const field = /** @type {HTMLInputElement} */ (h("input", { type: "text", readonly: true, value: link.url ?? link.token, "data-testid": `shared-${id}`, "aria-label": "Approval link" }));
      const help = h("p", { class: "help" }, "Whoever opens this link can answer this one prompt, without signing in, until its deadline.");
      slot.replaceChildren(field, help);
      field.select();
      const copied = await navigator.clipboard?.writeText(field.value).then(
        () => true,
        () => false,
      );
      if (copied) help.prepend("Copied. ");
    } catch (e) {
      button.disabled = false;
      slot.append(h("p", { class: "error", role: "alert" }, e instanceof Error ? e.message : String(e)));
    }
  }
  return slot;
}
