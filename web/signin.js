// @ts-check
// The human's token: from the company's OpenID issuer (oidc.js) when one is configured, else taken
// from the address or localStorage; shown in the top bar, asked for when missing or refused.
import { decodeClaims } from "./claims.js";
import { byId, h } from "./dom.js";
import { finishSignIn, forgetIssuerTokens, issuerSettings, issuerToken, keepFresh, signInConfigured, signInProblem, startSignIn } from "./oidc.js";
import { endpoints, store, takeSetting } from "./settings.js";
import { keepTimesFresh } from "./time.js";

const TOKEN_KEY = "tollgate.token";
let token = "";
/** @type {(() => void)[]} */
const onSignOut = [];

export const currentToken = () => token;
/** The signed-in human's claims (for display and for naming who answered). */
export const claims = () => decodeClaims(token);
/** Runs `stop` when the human signs out or the token is refused. */
export const whenSignedOut = (/** @type {() => void} */ stop) => {
  onSignOut.push(stop);
};

/** @param {string} [message] */
function showSignin(message) {
  byId("app").hidden = true;
  for (const id of ["conn", "signout"]) byId(id).hidden = true;
  byId("who").textContent = "";
  const box = byId("signin");
  const area = h("textarea", { id: "token-input", name: "token", rows: 5, required: true, spellcheck: "false", autocomplete: "off", placeholder: "eyJhbGciOiJIUzI1NiIs…" });
  /** @param {SubmitEvent} e */
  const onsubmit = (e) => {
    e.preventDefault();
    const value = area.value.trim();
    if (!value) return;
    store.set(TOKEN_KEY, value);
    location.reload();
  };
  const issuer = signInConfigured() ? new URL(issuerSettings().issuer).host : "";
  const viaIssuer = issuer
    ? h(
        "button",
        { type: "button", class: "primary", "data-testid": "signin-issuer", onclick: () => void startSignIn().catch((e) => showSignin(`Sign-in failed: ${signInProblem(e)}`)) },
        `Sign in with ${issuer}`,
      )
    : null;
  box.replaceChildren(
    h(
      "form",
      { class: "signin", onsubmit },
      h("h1", {}, "Sign in to the approval inbox"),
      message ? h("p", { class: "error", role: "alert" }, message) : null,
      viaIssuer,
      h("label", { for: "token-input" }, issuer ? "Or paste a token (development)" : "Paste a human token (JWT)"),
      h("p", { class: "help" }, "The local runtime prints ready-made tokens when it starts. You can also open this page with ?token=… in the address."),
      area,
      h("button", { type: "submit", class: issuer ? "" : "primary" }, "Use this token"),
    ),
  );
  box.hidden = false;
  area.focus();
}

/** Drops the token and asks for another one. @param {string} [message] */
export function signOut(message) {
  for (const stop of onSignOut.splice(0)) stop();
  store.del(TOKEN_KEY);
  forgetIssuerTokens();
  token = "";
  showSignin(message);
}

/**
 * Reads the token (back from the issuer, the issuer's session, then the URL or localStorage), shows
 * who is signed in, then runs start(). @param {() => void} start
 */
export async function boot(start) {
  const failed = await finishSignIn().then(
    () => "",
    (e) => `Sign-in failed: ${signInProblem(e)}`,
  );
  token = issuerToken() || takeSetting("token", TOKEN_KEY);
  if (issuerToken()) {
    keepFresh((fresh) => {
      token = fresh;
    });
    byId("signout").textContent = "Sign out";
  }
  endpoints();
  byId("signout").addEventListener("click", () => signOut());
  if (!token) return showSignin(failed || undefined);
  const c = claims();
  const who = byId("who");
  who.textContent = c.sub ? `${c.sub}${c.role ? ` · ${c.role}` : ""}` : "";
  if (c.role === "runner") who.append(h("span", { class: "warn" }, " (runner tokens cannot read the inbox)"));
  byId("app").hidden = false;
  keepTimesFresh();
  start();
}
