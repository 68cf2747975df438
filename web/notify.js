// @ts-check
// Browser notifications for new prompts while the inbox's tab is hidden, shown by the service worker
// (sw.js) so that every browser can show them and a click opens the prompt's own approval page.
import { byId } from "./dom.js";
import { store } from "./settings.js";
import { whenSignedOut } from "./signin.js";

/** @typedef {import("./types").RequestEvent} RequestEvent */

const ASKED_KEY = "tollgate.notificationsAsked";
/** @type {Promise<ServiceWorkerRegistration | null> | null} */
let registration = null;

const supported = () => "Notification" in window && "serviceWorker" in navigator && window.isSecureContext;

/** The standalone approval page of one elicitation, beside the inbox. @param {string} id */
export const approvalUrl = (id) => new URL(`approval.html?elicitation=${encodeURIComponent(id)}`, location.href).href;

/**
 * What a notification says: the session (by its label) and the prompt.
 * @param {RequestEvent} ev @param {string} session
 */
export function notificationOf(ev, session) {
  return { title: `Approval needed · ${session}`, options: { body: ev.params.message, tag: ev.elicitation_id, data: { url: approvalUrl(ev.elicitation_id) } } };
}

/**
 * Registers the service worker and offers the top bar's "Turn on notifications" once: it shows only
 * while the browser has not been asked, and hides for good once the human answered (or dismissed) it.
 */
export function offerNotifications() {
  if (!supported()) return;
  // Notifications need an active worker: `ready` waits for it once registered.
  registration = navigator.serviceWorker
    .register("./sw.js")
    .then(() => navigator.serviceWorker.ready)
    .catch((e) => {
      console.warn("tollgate: no service worker, so no notifications", e);
      return null;
    });
  const button = /** @type {HTMLButtonElement} */ (byId("notify-on"));
  if (Notification.permission !== "default" || store.get(ASKED_KEY)) return;
  button.hidden = false;
  whenSignedOut(() => {
    button.hidden = true;
  });
  button.addEventListener("click", async () => {
    button.hidden = true;
    store.set(ASKED_KEY, "1");
    await Notification.requestPermission();
  });
}

/** Shows a new prompt as a notification, when the tab is hidden and the human allowed it. @param {RequestEvent} ev @param {string} session */
export async function notifyPrompt(ev, session) {
  if (!registration || document.visibilityState !== "hidden" || Notification.permission !== "granted") return;
  const worker = await registration;
  if (!worker) return;
  const { title, options } = notificationOf(ev, session);
  await worker.showNotification(title, options);
}

/** A resolved prompt's notification is stale: it goes. @param {string} elicitationId */
export async function withdrawPrompt(elicitationId) {
  const worker = registration && (await registration);
  for (const shown of (await worker?.getNotifications({ tag: elicitationId })) ?? []) shown.close();
}
