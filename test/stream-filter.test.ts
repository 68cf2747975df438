/**
 * The stream hands the streams function only the item kinds it reacts to (`streamItemKinds`), as
 * the event source mapping's filter does in the cloud: the rate counters and mirror rows a raise
 * and a verdict write are in the stream, and no invocation receives them.
 */
import type { DynamoDBStreamEvent } from "aws-lambda";
import { afterAll, beforeAll, expect, it } from "vitest";
import { streamItemKinds } from "../functions/catalog.js";
import { onInvoked } from "../local/lambda.js";
import { allRecords } from "./support/stream-records.js";
import { sleep, startTollgate, type Harness } from "./support/tollgate.js";

let t: Harness;
const handed: string[] = [];
let unhook: () => unknown = () => undefined;
beforeAll(async () => {
  t = await startTollgate({ rateLimits: { raisesPerMinute: 100, verdictsPerMinute: 100 } });
  unhook = onInvoked((name, event) => {
    if (name !== "streams") return;
    for (const r of (event as DynamoDBStreamEvent).Records) handed.push(r.dynamodb?.NewImage?.kind?.S ?? "(no new image)");
  });
});
afterAll(async () => {
  unhook();
  await t?.stop();
});

it("passes over rate counters and mirror rows: the streams function receives only the kinds it reacts to", async () => {
  const runner = await t.token("runner", "filtered-agent");
  const human = await t.token("human", "filtered-human");
  // A sub-agent's session, so the raise also mirrors the elicitation under its parent.
  expect((await t.http(runner, "PUT", "/v1/sessions/conv_filtered_parent", {})).status).toBe(200);
  expect((await t.http(runner, "PUT", "/v1/sessions/conv_filtered", { parent_session_id: "conv_filtered_parent" })).status).toBe(200);
  const raised = await t.http(runner, "POST", "/v1/sessions/conv_filtered/events", { type: "response.elicitation_request", elicitation_id: "el_filtered", params: { message: "May I?" } });
  expect(raised.status).toBe(201);
  expect((await t.http(human, "POST", "/v1/sessions/conv_filtered/events", { type: "approval", elicitation_id: "el_filtered", action: "accept" })).status).toBe(200);
  // Both transitions of the elicitation reached the streams function.
  const elicitationRecords = () => handed.filter((kind) => kind === "elicitation").length;
  for (let i = 0; i < 400 && elicitationRecords() < 2; i++) await sleep(25);
  expect(elicitationRecords()).toBeGreaterThanOrEqual(2);

  const inStream = (await allRecords(t)).map((r) => r.dynamodb?.NewImage?.kind?.S ?? "(no new image)");
  expect(inStream).toEqual(expect.arrayContaining(["rate", "descendant", "session", "elicitation"]));
  expect(handed).toEqual(expect.arrayContaining(["session", "elicitation"]));
  for (const kind of handed) expect(streamItemKinds as readonly string[]).toContain(kind);
});
