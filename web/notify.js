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

/**
 * The page's notification work, one step at a time. Chromium's `getNotifications()` deletes from its
 * store every notification the screen does not list yet unless made after the read began, so a read
 * while one is being shown loses it for good (still on screen, but no longer found to be closed).
 * `showNotification` settles once the notification is on screen: reads wait for it.
 */
let turn = Promise.resolve();
/** @template T @param {() => Promise<T>} step @returns {Promise<T>} */
function inTurn(step) {
  const done = turn.then(step);
  turn = done.then(
    () => undefined,
    () => undefined,
  );
  return done;
}

/** Shows a new prompt as a notification, when the tab is hidden and the human allowed it. @param {RequestEvent} ev @param {string} session */
export async function notifyPrompt(ev, session) {
  if (!registration || document.visibilityState !== "hidden" || Notification.permission !== "granted") return;
  const { title, options } = notificationOf(ev, session);
  // In turn from this call on, so that a withdrawal asked for after it finds it.
  await inTurn(async () => (await registration)?.showNotification(title, options));
}

/** The notifications on show (one prompt's, by its id), read in turn. @param {string} [elicitationId] @returns {Promise<Notification[]>} */
export const shownPrompts = (elicitationId) =>
  inTurn(async () => {
    const worker = registration && (await registration);
    return (await worker?.getNotifications(elicitationId ? { tag: elicitationId } : undefined)) ?? [];
  });

/** A resolved prompt's notification is stale: it goes. @param {string} elicitationId */
export async function withdrawPrompt(elicitationId) {
  for (const shown of await shownPrompts(elicitationId)) shown.close();
}
