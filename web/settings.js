// @ts-check
// What the page keeps between visits: the token and the API addresses, in localStorage, or in memory
// when the browser refuses storage.

/** @type {Map<string, string>} */
const memory = new Map();

export const store = {
  /** @param {string} k @returns {string | null} */
  get: (k) => {
    try {
      return localStorage.getItem(k);
    } catch {
      return memory.get(k) ?? null;
    }
  },
  /** @param {string} k @param {string} v */
  set: (k, v) => {
    try {
      localStorage.setItem(k, v);
    } catch {
      memory.set(k, v);
    }
  },
  /** @param {string} k */
  del: (k) => {
    try {
      localStorage.removeItem(k);
    } catch {
      memory.delete(k);
    }
  },
};

/**
 * A setting given once as `?name=` in the page URL, then kept (and taken out of the visible URL).
 * @param {string} name @param {string} key
 */
export function takeSetting(name, key) {
  const url = new URL(location.href);
  const fromUrl = url.searchParams.get(name);
  if (fromUrl) {
    store.set(key, fromUrl.trim());
    url.searchParams.delete(name);
    history.replaceState(history.state, "", url.pathname + url.search + url.hash);
  }
  return store.get(key) || "";
}

/** @type {{api: string, ws: string} | undefined} */
let taken;

/**
 * Where the HTTP and WebSocket APIs live. Served by the local runtime, they share the page's origin.
 * In the cloud they live on API Gateway: open the page once with `?api=<HttpUrl>&ws=<WebSocketUrl>`
 * (the stack's outputs).
 */
export function endpoints() {
  taken ??= {
    api: takeSetting("api", "tollgate.api").replace(/\/$/, ""),
    ws: takeSetting("ws", "tollgate.ws") || `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`,
  };
  return taken;
}
