/** The retention setting: a resolved elicitation leaves the history when its retention has passed (here 3 s). */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readConfig } from "../functions/shared/config.js";
import { sleep, startTollgate, type Harness } from "./support/tollgate.js";

// One runtime per test file: the functions read their settings from the process environment.
let short: Harness;
beforeAll(async () => {
  short = await startTollgate({ retentionSeconds: 3 });
});
afterAll(() => short?.stop());

it("is 90 days unless set, in days, or in seconds where a shorter one is needed", () => {
  expect(readConfig({}).resolvedRetentionSeconds).toBe(90 * 86_400);
  expect(readConfig({ TOLLGATE_HISTORY_RETENTION_DAYS: "400" }).resolvedRetentionSeconds).toBe(400 * 86_400);
  expect(readConfig({ TOLLGATE_HISTORY_RETENTION_DAYS: "400", TOLLGATE_RESOLVED_RETENTION_SECONDS: "60" }).resolvedRetentionSeconds).toBe(60);
  expect(() => readConfig({ TOLLGATE_HISTORY_RETENTION_DAYS: "-1" })).toThrow(/TOLLGATE_HISTORY_RETENTION_DAYS/);
});

describe("retention", () => {
  it("a decision leaves the history once its retention has passed, whether or not TTL removed it yet", async () => {
    const runner = await short.token("runner");
    const human = await short.token("human");
    await short.http(runner, "PUT", "/v1/sessions/ret", {});
    await short.http(runner, "POST", "/v1/sessions/ret/events", { type: "response.elicitation_request", elicitation_id: "ret_1", params: { message: "Keep?" } });
    await short.http(human, "POST", "/v1/sessions/ret/events", { type: "approval", elicitation_id: "ret_1", action: "decline", message: "no" });
    const resolvedAt = Date.parse((await short.http(human, "GET", "/v1/elicitations/ret_1")).body.verdict.resolved_at);
    const listed = (await short.http(human, "GET", "/v1/history")).body.items;
    // Only if this read came within the retention is it required to be there (a loaded machine may be slower).
    if (Date.now() < resolvedAt + 2_000) expect(listed.map((e: any) => e.elicitation_id)).toEqual(["ret_1"]);
    const item = (await short.scan()).find((i: any) => i.pk.S === "T#acme#E#ret_1") as any;
    expect(Number(item.expires_at.N)).toBe(Math.floor(resolvedAt / 1000) + 3);
    await sleep(Math.max(0, resolvedAt + 4_100 - Date.now()));
    expect((await short.http(human, "GET", "/v1/history")).body).toEqual({ items: [], next_cursor: null });
  });
});
