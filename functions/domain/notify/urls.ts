/**
 * Where a target may point. In the cloud: https only, and never at a loopback, private, link-local
 * or otherwise non-public address, by literal or by what the name resolves to (no way into the VPC
 * or the metadata service). Locally: plain http too, but only to loopback.
 */
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { badRequest } from "../../shared/errors.js";

const V4_BLOCKED: [number, number][] = [
  [0x00000000, 8],
  [0x0a000000, 8],
  [0x64400000, 10],
  [0x7f000000, 8],
  [0xa9fe0000, 16],
  [0xac100000, 12],
  [0xc0000000, 24],
  [0xc0000200, 24],
  [0xc0a80000, 16],
  [0xc6120000, 15],
  [0xc6336400, 24],
  [0xcb007100, 24],
  [0xe0000000, 3],
];

function v4Number(ip: string): number {
  return ip.split(".").reduce((n, part) => n * 256 + Number(part), 0);
}

const inV4 = (ip: string) => V4_BLOCKED.some(([base, bits]) => Math.floor(v4Number(ip) / 2 ** (32 - bits)) === Math.floor(base / 2 ** (32 - bits)));

/** Not a public unicast address: loopback, private, link-local, CGNAT, documentation, multicast, unique local, mapped private. */
export function isNonPublic(ip: string): boolean {
  if (isIP(ip) === 4) return inV4(ip);
  const v6 = ip.toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(v6);
  if (mapped) return inV4(mapped[1]);
  // The URL parser writes a mapped IPv4 address in hex: ::ffff:a00:1 is 10.0.0.1.
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(v6);
  if (hex) return inV4([parseInt(hex[1], 16) >> 8, parseInt(hex[1], 16) & 255, parseInt(hex[2], 16) >> 8, parseInt(hex[2], 16) & 255].join("."));
  return v6 === "::" || v6 === "::1" || /^f[cd]/.test(v6) || /^fe[89ab]/.test(v6) || v6.startsWith("ff") || v6.startsWith("64:ff9b:") || v6.startsWith("2001:db8");
}

const isLoopback = (host: string) => host === "localhost" || host === "::1" || (isIP(host) === 4 && host.startsWith("127."));

/** A URL's hostname without an IPv6 literal's brackets. */
export const bareHost = (hostname: string) => hostname.replace(/^\[|\]$/g, "");

/** The URL, checked; a refusal is `bad_request` saying why. */
export async function checkTargetUrl(raw: string, local: boolean, resolve: Resolve): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw badRequest("url: must be an absolute URL");
  }
  if (url.username || url.password) throw badRequest("url: must not carry credentials");
  const host = bareHost(url.hostname);
  if (url.protocol === "http:") {
    if (!local) throw badRequest("url: must be https");
    if (!isLoopback(host)) throw badRequest("url: plain http only to loopback");
    return url;
  }
  if (url.protocol !== "https:") throw badRequest("url: must be https");
  if (!local) await requirePublic(host, resolve);
  return url;
}

/** Every address the host stands for is public (each delivery's connection checks again: a name can change). */
async function requirePublic(host: string, resolve: Resolve): Promise<void> {
  const addresses = isIP(host) ? [host] : await resolve(host).catch(() => []);
  if (addresses.length === 0) throw badRequest("url: host does not resolve");
  if (addresses.some(isNonPublic)) throw badRequest("url: must not point at a private, loopback or link-local address");
}

/** A name's addresses, as the system resolver answers them (tests may pass their own). */
export type Resolve = (host: string) => Promise<string[]>;

/** The system resolver's answer: every address, as a connection would look the name up. */
export const systemResolve: Resolve = async (host) => (await lookup(host, { all: true })).map((a) => a.address);
