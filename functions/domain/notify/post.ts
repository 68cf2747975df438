/**
 * One POST of a delivery, over a connection that goes only where the address rule allows. The name
 * is looked up once, by the connection itself, and every address it answers is checked before one is
 * dialled: a name whose answer changes between a check and the connection (DNS rebinding) has no
 * second lookup to change in.
 */
import type { LookupAddress } from "node:dns";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP } from "node:net";
import { bareHost, type Resolve } from "./urls.js";

export interface PostRules {
  resolve: Resolve;
  /** Whether the connection may go to this address. */
  allowed: (address: string) => boolean;
  timeoutMs: number;
}

export type PostResult = { status: number } | { error: string };

const REFUSED = "refused: the host resolves to a private, loopback or link-local address";

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** `net`'s lookup hook: the rule applied to every address of the answer, before any is dialled. */
function checkedLookup(rules: PostRules) {
  return (host: string, options: { all?: boolean }, callback: LookupCallback) => {
    rules.resolve(host).then(
      (addresses) => {
        if (addresses.length === 0) return callback(Object.assign(new Error(`${host} does not resolve`), { code: "ENOTFOUND" }), []);
        if (!addresses.every(rules.allowed)) return callback(Object.assign(new Error(REFUSED), { code: "EREFUSED_ADDRESS" }), []);
        const answer = addresses.map((address) => ({ address, family: isIP(address) }));
        if (options.all) callback(null, answer);
        else callback(null, answer[0].address, answer[0].family);
      },
      (error: NodeJS.ErrnoException) => callback(error, []),
    );
  };
}

/** POSTs `body` to `url` and answers the status (the body is not read; a redirect is not followed), or why it could not. */
export function post(url: URL, headers: Record<string, string>, body: string, rules: PostRules): Promise<PostResult> {
  const host = bareHost(url.hostname);
  // A literal address is dialled as it is: `net` looks nothing up.
  if (isIP(host) && !rules.allowed(host)) return Promise.resolve({ error: REFUSED });
  const signal = AbortSignal.timeout(rules.timeoutMs);
  const request = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const req = request(url, { method: "POST", headers: { ...headers, "content-length": String(Buffer.byteLength(body)) }, lookup: checkedLookup(rules), signal }, (response: IncomingMessage) => {
      response.destroy();
      resolve({ status: response.statusCode ?? 0 });
    });
    req.on("error", (error: NodeJS.ErrnoException) => {
      if (signal.aborted) resolve({ error: "timed out" });
      else if (error.code === "EREFUSED_ADDRESS") resolve({ error: REFUSED });
      else resolve({ error: "could not connect" });
    });
    req.end(body);
  });
}
