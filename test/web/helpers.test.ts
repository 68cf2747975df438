/** The inbox's pure helpers, outside the browser: token claims, relative times, backoff, path segments, verdict words. */
import { describe, expect, it } from "vitest";
import { seg } from "../../web/api.js";
import { decodeClaims } from "../../web/claims.js";
import { retryDelay } from "../../web/live.js";
import { relative } from "../../web/time.js";
import { verdictWords } from "../../web/verdict.js";

const base64url = (text: string) =>
  btoa(String.fromCharCode(...new TextEncoder().encode(text)))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
const jwt = (claims: unknown) => `${base64url('{"alg":"HS256"}')}.${base64url(JSON.stringify(claims))}.signature`;

describe("decodeClaims", () => {
  it("reads a token's claims, base64url and UTF-8 included", () => {
    // "~~~" and "???" encode to base64 with + and /: the URL-safe alphabet must be undone.
    const claims = { sub: "zoë ~~~ ???", role: "human", tenant: "acme", exp: 1 };
    expect(jwt(claims)).toMatch(/-.*_|_.*-/);
    expect(decodeClaims(jwt(claims))).toEqual(claims);
  });

  it("gives no claims for what is not a readable token", () => {
    for (const token of ["", "abc", "a.b.c", `x.${base64url("[1,2]")}.y`, `x.${base64url("null")}.y`, `x.${base64url("{")}.y`]) {
      expect(decodeClaims(token)).toEqual({});
    }
  });
});

describe("relative", () => {
  const now = Date.parse("2026-12-01T10:00:00Z");
  const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
  const at = (seconds: number) => new Date(now + seconds * 1000).toISOString();

  it("says just now or in a few seconds inside 45 s", () => {
    expect(relative(at(-44), now)).toBe("just now");
    expect(relative(at(30), now)).toBe("in a few seconds");
  });

  it("picks the largest whole unit and rounds", () => {
    expect(relative(at(-45), now)).toBe(rtf.format(-45, "second"));
    expect(relative(at(-170), now)).toBe(rtf.format(-3, "minute"));
    expect(relative(at(2 * 3600 + 100), now)).toBe(rtf.format(2, "hour"));
    expect(relative(at(-3 * 86400), now)).toBe(rtf.format(-3, "day"));
  });

  it("is empty for what is not a time", () => {
    expect(relative("soon", now)).toBe("");
    expect(relative("", now)).toBe("");
  });
});

describe("retryDelay", () => {
  it("doubles from one second, jittered into the upper half", () => {
    expect(retryDelay(0, 0)).toBe(500);
    expect(retryDelay(0, 0.999999)).toBe(1000);
    expect(retryDelay(3, 0.5)).toBe(6000);
  });

  it("never waits more than 30 s", () => {
    expect(retryDelay(5, 0.999999)).toBe(30_000);
    expect(retryDelay(60, 0.999999)).toBe(30_000);
    expect(retryDelay(60, 0)).toBe(15_000);
  });
});

describe("seg", () => {
  it("keeps protocol ids as they are and encodes anything else", () => {
    expect(seg("conv_1.a:b-c")).toBe("conv_1.a:b-c");
    expect(seg("a/b?c#d")).toBe("a%2Fb%3Fc%23d");
    expect(seg("..")).toBe("..");
    expect(seg("zoë")).toBe("zo%C3%AB");
  });
});

describe("verdictWords", () => {
  it("names the action and how it resolved", () => {
    expect(verdictWords({ action: "accept", reason: "answered" })).toEqual({ action: "Accepted", how: "answered by" });
    expect(verdictWords({ action: "decline", reason: "timeout" })).toEqual({ action: "Declined", how: "deadline passed, resolved by" });
    expect(verdictWords({ action: "cancel", reason: "runner_gone" })).toEqual({ action: "Cancelled", how: "its runner went away, resolved by" });
    expect(verdictWords({ action: "cancel" })).toEqual({ action: "Cancelled", how: "resolved, by" });
    expect(verdictWords({ action: "accept", reason: "later_reason" })).toEqual({ action: "Accepted", how: "later_reason, by" });
  });
});
