/**
 * A function instance keeps the notification targets it read for a while (here a minute, moved past
 * with the stepped clock), so a busy tenant's events and attempts do not each read the targets'
 * partition; a change of a target reaches them once what was kept is older than that.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { observeAwsCalls } from "../support/aws-calls.js";
import { startReceiver, type Receiver } from "../support/receiver.js";
import { eventually, startTollgate, type Harness } from "../support/tollgate.js";

const KEPT_MS = 60_000;

let t: Harness;
let receiver: Receiver;
/** The reads of the targets' partition by the stream's fan-out and by the attempts, as `function command`. */
const reads: string[] = [];
let stopObserving = () => {};
beforeAll(async () => {
  receiver = await startReceiver();
  // Records of attempts a minute apart too, so the attempts below have nothing to record and no reason to read again.
  t = await startTollgate({ notifyTargetsKeptMs: KEPT_MS, notifySuccessRecordMs: KEPT_MS });
  stopObserving = observeAwsCalls(t.runtime.clients, (call) => {
    const pk = call.input?.Key?.pk ?? call.input?.ExpressionAttributeValues?.[":pk"];
    const read = call.command === "GetItemCommand" || call.command === "QueryCommand";
    if (read && pk === "T#acme#TARGETS" && (call.fn === "streams" || call.fn === "timerNotify")) reads.push(`${call.fn} ${call.command}`);
  });
});
afterAll(async () => {
  stopObserving();
  await t?.stop();
  await receiver?.close();
});

async function raise(id: string) {
  const r = await t.http(await t.token("runner"), "POST", "/v1/sessions/conv_kept/events", { type: "response.elicitation_request", elicitation_id: id, params: { message: `${id}?` } });
  expect(r.status).toBe(201);
}

const putTarget = async (path: string) => {
  const r = await t.http(await t.token("service"), "PUT", "/v1/notification-targets/kept", { kind: "webhook", url: receiver.url(path), events: ["elicitation.requested"] });
  expect([200, 201]).toContain(r.status);
};

it("reads the targets once for many events and attempts, and a change reaches them once what was kept is old enough", { timeout: 90_000 }, async () => {
  await putTarget("/first");
  await t.http(await t.token("runner"), "PUT", "/v1/sessions/conv_kept", {});
  // The first event: the list, the target, and the target read again before its first record.
  await raise("kept_1");
  await eventually(async () => expect((await t.http(await t.token("service"), "GET", "/v1/notification-targets/kept")).body.last_attempts).toHaveLength(1), 20_000);
  expect(reads).toEqual(["streams QueryCommand", "timerNotify GetItemCommand", "timerNotify GetItemCommand"]);
  // Five more within the minute: no read at all, where each event would list the targets and each attempt read its own.
  for (let i = 2; i <= 6; i++) await raise(`kept_${i}`);
  await eventually(() => expect(receiver.at("/first")).toHaveLength(6), 20_000);
  await t.quietScan();
  expect(reads, JSON.stringify(reads)).toHaveLength(3);

  // A change within the minute: the events and attempts still go by the targets as they were read.
  await putTarget("/second");
  await raise("kept_7");
  await eventually(() => expect(receiver.at("/first")).toHaveLength(7), 20_000);
  expect(receiver.at("/second")).toHaveLength(0);

  // Once what was kept is a minute old, they read the targets again and go by the change.
  await t.elapse(KEPT_MS + 1_000);
  await raise("kept_8");
  await eventually(() => expect(receiver.at("/second")).toHaveLength(1), 20_000);
  expect(receiver.at("/first")).toHaveLength(7);
});
