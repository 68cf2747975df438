/**
 * A token provider for machines: OAuth 2.0 client credentials from an OpenID Connect issuer. Pass
 * it as the runner's `token`: it is asked before every connection, answers from its cache, and
 * fetches a new access token shortly before the cached one expires.
 */
export interface ClientCredentialsOptions {
  /** The issuer; its token endpoint comes from `/.well-known/openid-configuration`. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  scope?: string;
  /** RFC 8707 resource indicator (the audience Tollgate is configured with), where the issuer takes one. */
  resource?: string;
  /** Fetch a new token this long before the cached one expires (default 60 s). */
  refreshBeforeSeconds?: number;
}

interface Cached {
  token: string;
  /** Epoch milliseconds after which a new token is fetched. */
  renewAt: number;
}

/** `fetch`, whose network failure names the address and the cause ("fetch failed" says neither); still a TypeError, as fetch's. */
async function reach(url: string, init?: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new TypeError(`cannot reach ${url} (${cause?.code ?? cause?.message ?? (error as Error).message})`, { cause: error });
  }
}

async function json(response: Response, what: string): Promise<Record<string, unknown>> {
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (!response.ok) throw new Error(`${what} answered ${response.status}${typeof body.error === "string" ? ` (${body.error})` : ""}`);
  return body;
}

export function clientCredentials(options: ClientCredentialsOptions): () => Promise<string> {
  const margin = (options.refreshBeforeSeconds ?? 60) * 1000;
  let endpoint: Promise<string> | undefined;
  let cached: Cached | undefined;
  let inFlight: Promise<string> | undefined;

  const tokenEndpoint = () =>
    (endpoint ??= reach(`${options.issuer.replace(/\/$/, "")}/.well-known/openid-configuration`)
      .then((response) => json(response, "the issuer's discovery document"))
      .then((document) => {
        if (typeof document.token_endpoint !== "string") throw new Error("the issuer names no token_endpoint");
        return document.token_endpoint;
      })
      .catch((error) => {
        endpoint = undefined;
        throw error;
      }));

  async function fetchToken(): Promise<string> {
    const body = new URLSearchParams({ grant_type: "client_credentials" });
    if (options.scope) body.set("scope", options.scope);
    if (options.resource) body.set("resource", options.resource);
    const basic = btoa(`${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`);
    const started = Date.now();
    const response = await reach(await tokenEndpoint(), {
      method: "POST",
      headers: { authorization: `Basic ${basic}`, "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body,
    });
    const reply = await json(response, "the token endpoint");
    if (typeof reply.access_token !== "string") throw new Error("the token endpoint gave no access_token");
    const lifetime = typeof reply.expires_in === "number" ? reply.expires_in * 1000 : 300_000;
    cached = { token: reply.access_token, renewAt: started + Math.max(lifetime - margin, lifetime / 2) };
    return reply.access_token;
  }

  return async () => {
    if (cached && Date.now() < cached.renewAt) return cached.token;
    inFlight ??= fetchToken().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };
}
