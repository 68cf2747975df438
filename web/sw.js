// @ts-check
// The inbox's service worker: it only shows notifications (notify.js) and opens the prompt's approval
// page when one is clicked. It handles no fetch, so every request goes to the network as before.

const worker = /** @type {import("./types").NotificationWorker} */ (/** @type {unknown} */ (self));

worker.addEventListener("install", () => void worker.skipWaiting());
worker.addEventListener("activate", (event) => event.waitUntil(worker.clients.claim()));

/** Focuses a tab that already shows the page, or opens one. @param {string} url */
async function openPage(url) {
  const tabs = await worker.clients.matchAll({ type: "window", includeUncontrolled: true });
  const open = tabs.find((tab) => tab.url === url);
  if (open) return open.focus();
  return worker.clients.openWindow(url);
}

worker.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = event.notification.data?.url;
  if (typeof url === "string" && new URL(url).origin === location.origin) event.waitUntil(openPage(url));
});
