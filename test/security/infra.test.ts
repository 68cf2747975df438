/**
 * The cloud side of the rate limits: exactly the functions that raise or answer (catalog
 * `rateLimited`) get the limits in their environment, from CDK context with generous defaults.
 * (The $connect authorizer and token verification are covered by test/infra and tokens.test.ts.)
 */
import { App } from "aws-cdk-lib";
import { afterAll, describe, expect, it } from "vitest";
import { functions as catalog } from "../../functions/catalog.js";
import { env } from "../../functions/shared/env.js";
import { readConfig } from "../../infra/config.js";
import { functionNames, removeStubSourceRoot, synth } from "../infra/helpers.js";

afterAll(removeStubSourceRoot);

const limits = (s: ReturnType<typeof synth>, name: (typeof functionNames)[number]) => {
  const v = s.json.Resources[s.fnId(name)].Properties.Environment.Variables as Record<string, unknown>;
  return [v[env.rateLimitRaisesPerMinute], v[env.rateLimitVerdictsPerMinute]];
};

describe("rate limits in the stack", () => {
  it("go to exactly the rate-limited functions (the raise and verdict paths, an approval link's verdict included), 600/min by default; context overrides them", () => {
    const rateLimited = functionNames.filter((name) => "rateLimited" in catalog[name]);
    expect(rateLimited.sort()).toEqual(["httpPostEvent", "httpPostLinkVerdict", "wsElicit"]);
    const s = synth();
    for (const name of functionNames) expect(limits(s, name), name).toEqual(rateLimited.includes(name) ? ["600", "600"] : [undefined, undefined]);
    // Context overrides them (the stack hands cfg.rateLimits to exactly those functions, as above).
    const config = (context: Record<string, unknown>) => readConfig(new App({ context }).node).rateLimits;
    expect(config({ "tollgate:rateLimitRaisesPerMinute": 30, "tollgate:rateLimitVerdictsPerMinute": "0" })).toEqual({ raisesPerMinute: 30, verdictsPerMinute: 0 });
    expect(() => config({ "tollgate:rateLimitVerdictsPerMinute": "-1" })).toThrow(/rateLimitVerdictsPerMinute/);
  });
});
