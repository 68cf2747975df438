/**
 * A real OpenID Connect provider for the tests (the certified `oidc-provider` package) on loopback:
 * machine clients with the client-credentials grant, a public inbox client with PKCE, people who
 * sign in on its development login page, JWT access tokens for Tollgate's audience, and keys that
 * can be rotated while it runs.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { SignJWT, exportJWK, generateKeyPair, importJWK, type JWK, type JWTPayload } from "jose";
import Provider, { type Configuration } from "oidc-provider";

export const AUDIENCE = "urn:tollgate:api";

/** What a client or person carries into its tokens: the tenant claim and the groups. */
export interface Identity {
  org?: string;
  groups?: string[];
  /** The algorithm of this client's access tokens (default ES256). */
  alg?: "ES256" | "RS256";
}

export interface ProviderOptions {
  /** Machine clients by id (their secret is `<id>-secret`) and what their tokens carry. */
  machines?: Record<string, Identity>;
  /** People by login name. */
  people?: Record<string, Identity>;
  /** Redirect URIs of the public inbox client. */
  inboxRedirects?: string[];
  accessTokenSeconds?: number;
  port?: number;
  /** An issuer identifier that ends in `/` (as Auth0's does). */
  issuerSlash?: boolean;
}

export interface TestProvider {
  issuer: string;
  port: number;
  /** A JWT access token for a machine client, by the client-credentials grant. */
  machineToken(clientId: string, resource?: string): Promise<string>;
  /** A token signed with the provider's own current ES256 key: for claims its endpoints never issue (an `exp` in the past). */
  signWithProviderKey(payload: JWTPayload): Promise<string>;
  /** A new signing key per algorithm, published first (new tokens use it); the previous ones stay published. */
  rotateKeys(): Promise<void>;
  stop(): Promise<void>;
}

async function signingKeys(): Promise<JWK[]> {
  const keys: JWK[] = [];
  for (const alg of ["ES256", "RS256"] as const) {
    const { privateKey } = await generateKeyPair(alg, { extractable: true });
    keys.push({ ...(await exportJWK(privateKey)), alg, use: "sig", kid: `${alg.toLowerCase()}-${crypto.randomUUID().slice(0, 8)}` });
  }
  return keys;
}

function configuration(o: ProviderOptions, keys: JWK[]): Configuration {
  const machines = o.machines ?? {};
  const people = o.people ?? {};
  return {
    clients: [
      ...Object.keys(machines).map((id) => ({
        client_id: id,
        client_secret: `${id}-secret`,
        grant_types: ["client_credentials"],
        response_types: [],
        redirect_uris: [],
      })),
      {
        client_id: "inbox",
        token_endpoint_auth_method: "none",
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code" as const],
        redirect_uris: o.inboxRedirects ?? ["http://127.0.0.1/"],
      },
    ],
    jwks: { keys },
    pkce: { required: () => true },
    ttl: {
      AccessToken: o.accessTokenSeconds ?? 600,
      ClientCredentials: o.accessTokenSeconds ?? 600,
      IdToken: 600,
      RefreshToken: 3_600,
      Interaction: 600,
      Session: 3_600,
      Grant: 3_600,
    },
    // The inbox calls the token endpoint from its own origin.
    clientBasedCORS: () => true,
    features: {
      devInteractions: { enabled: true },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => AUDIENCE,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resource: string, client: { clientId: string }) => ({
          scope: "tollgate",
          audience: resource,
          accessTokenFormat: "jwt",
          jwt: { sign: { alg: machines[client.clientId]?.alg ?? "ES256" } },
        }),
      },
    },
    scopes: ["openid", "offline_access", "tollgate"],
    findAccount: (_ctx: unknown, id: string) => ({ accountId: id, claims: () => ({ sub: id }) }),
    extraTokenClaims: (_ctx: unknown, token: { clientId?: string; accountId?: string }) => {
      const identity = token.accountId ? people[token.accountId] : machines[token.clientId ?? ""];
      return identity && { ...(identity.org ? { org: identity.org } : {}), ...(identity.groups ? { groups: identity.groups } : {}) };
    },
  };
}

export async function startProvider(o: ProviderOptions = {}): Promise<TestProvider> {
  let server: Server | undefined;
  let port = o.port ?? 0;
  let issuer = "";
  async function listen(keys: JWK[]) {
    const http = createServer();
    await new Promise<void>((resolve) => http.listen(port, "127.0.0.1", resolve));
    port = (http.address() as AddressInfo).port;
    issuer = `http://127.0.0.1:${port}${o.issuerSlash ? "/" : ""}`;
    const provider = new Provider(issuer, configuration(o, keys));
    http.on("request", provider.callback());
    server = http;
  }
  const close = () => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  let keys = await signingKeys();
  await listen(keys);
  return {
    get issuer() {
      return issuer;
    },
    get port() {
      return port;
    },
    async machineToken(clientId, resource = AUDIENCE) {
      const response = await fetch(`http://127.0.0.1:${port}/token`, {
        method: "POST",
        headers: {
          authorization: `Basic ${Buffer.from(`${clientId}:${clientId}-secret`).toString("base64")}`,
          "content-type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams({ grant_type: "client_credentials", resource, scope: "tollgate" }),
      });
      const body = (await response.json()) as { access_token?: string; error?: string };
      if (!body.access_token) throw new Error(`token endpoint: ${JSON.stringify(body)}`);
      return body.access_token;
    },
    async signWithProviderKey(payload) {
      const jwk = keys.find((key) => key.alg === "ES256")!;
      return new SignJWT({ iss: issuer, aud: AUDIENCE, ...payload }).setProtectedHeader({ alg: "ES256", kid: jwk.kid }).sign(await importJWK(jwk, "ES256"));
    },
    async rotateKeys() {
      server?.closeAllConnections();
      await close();
      keys = [...(await signingKeys()), ...keys.slice(0, 2)];
      await listen(keys);
    },
    stop: async () => {
      server?.closeAllConnections();
      await close();
    },
  };
}
