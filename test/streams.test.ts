/**
 * The streams handler is idempotent: the same batch twice leaves counts exact and sends nothing twice.
 * And it reads each tenant's subscribers (each of their shards) at most once per batch.
 */
import { DynamoDBClient, GetItemCommand, PutItemCommand, QueryCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, expect, it } from "vitest";
import { keys } from "../functions/domain/stores/keys.js";
import { invocation } from "../local/lambda.js";
import { observeAwsCalls } from "./support/aws-calls.js";
import { allRecords } from "./support/stream-records.js";
import { sleep, startTollgate, type Harness } from "./support/tollgate.js";

/** What each streams invocation asked of the subscriber partitions, of message queues and of `@connections`. */
const streamsCalls = new Map<object, { subscriberQueries: string[]; queueQueries: string[]; pushes: string[] }>();

let t: Harness;
let stopObserving = () => {};
beforeAll(async () => {
  t = await startTollgate();
  stopObserving = observeAwsCalls(t.runtime.clients, ({ command, input }) => {
    const store = invocation.getStore();
    if (store?.functionName !== "streams") return;
    const calls = streamsCalls.get(store) ?? { subscriberQueries: [], queueQueries: [], pushes: [] };
    streamsCalls.set(store, calls);
    const pk = input.ExpressionAttributeValues?.[":pk"];
    if (command === "QueryCommand" && String(pk).includes("#SUBSCRIBERS")) calls.subscriberQueries.push(pk);
    if (command === "QueryCommand" && input.ExpressionAttributeValues[":prefix"] === "M#") calls.queueQueries.push(pk);
    if (command === "PostToConnectionCommand") calls.pushes.push(input.ConnectionId);
  });
});
afterAll(async () => {
  stopObserving();
  await t?.stop();
});

const credentials = { accessKeyId: "local", secretAccessKey: "local" };

it("replays of the same batch change no count and push no second verdict", async () => {
  const human = await t.token("human");
  const socket = await t.socket(await t.token("runner"));
  await socket.request({ action: "hello", sessions: [{ session_id: "conv_s" }] });
  for (const id of ["e1", "e2", "e3"]) await socket.request({ action: "elicit", session_id: "conv_s", elicitation_id: id, params: { message: `ok ${id}?` } });
  for (const id of ["e1", "e2"]) await t.http(human, "POST", "/v1/sessions/conv_s/events", { type: "approval", elicitation_id: id, action: "accept" });
  await socket.next((f) => f.elicitation_id === "e2" && f.type === "elicitation.verdict");
  const settled = await t.quietScan();

  const batch = { Records: await allRecords(t) };
  expect(batch.Records.length).toBeGreaterThan(6);
  for (let replay = 0; replay < 2; replay++) {
    const result = await t.runtime.invoke<{ batchItemFailures: unknown[] }>("streams", batch);
    expect(result.batchItemFailures).toEqual([]);
  }
  await sleep(300);

  for (const id of ["e1", "e2"]) expect(socket.count((f) => f.type === "elicitation.verdict" && f.elicitation_id === id)).toBe(1);
  expect(socket.count((f) => f.type === "elicitation.verdict" && f.elicitation_id === "e3")).toBe(0);
  const session = await t.http(human, "GET", "/v1/sessions/conv_s");
  expect(session.body.pending_elicitations_count).toBe(1);
  expect(session.body.pending_elicitations.map((e: { elicitation_id: string }) => e.elicitation_id)).toEqual(["e3"]);
  const pending = await t.http(human, "GET", "/v1/sessions?pending=true");
  expect(pending.body.sessions.map((s: { session_id: string }) => s.session_id)).toEqual(["conv_s"]);
  // Items the replay could have touched (counts, claims, rows) are as they were.
  const after = await t.quietScan();
  const stable = (items: Record<string, any>[]) => items.filter((i) => i.sk.S !== "CONNECTION").map((i) => ({ ...i, updated_at: undefined }));
  expect(stable(after)).toEqual(stable(settled));
});

it("reads each tenant's subscribers once per batch, still reaches every subscriber and prunes a dead one", async () => {
  const acme = await t.socket(await t.token("human"));
  await acme.request({ action: "subscribe", sessions: "*" });
  const globex = await t.socket(await t.token("human", "human-g", "globex"));
  await globex.request({ action: "subscribe", sessions: "*" });
  for (const tenant of ["acme", "globex"]) {
    const runner = await t.socket(await t.token("runner", `runner-${tenant}`, tenant));
    await runner.request({ action: "hello", sessions: [{ session_id: `audience_${tenant}` }] });
    for (const id of ["a1", "a2"]) await runner.request({ action: "elicit", session_id: `audience_${tenant}`, elicitation_id: `${tenant}_${id}`, params: { message: "ok?" } });
    await runner.request({ action: "cancel", elicitation_id: `${tenant}_a1` });
  }
  await t.quietScan();

  // A subscriber whose connection died without a $disconnect: @connections answers 410.
  const dynamo = new DynamoDBClient({ endpoint: t.runtime.dynamoEndpoint, region: "us-east-1", credentials });
  const shards = (tenant: string) => keys.subscriberShards(tenant, t.runtime.config.subscriberShards);
  const rows = await Promise.all(
    shards("acme").map((pk) => dynamo.send(new QueryCommand({ TableName: t.runtime.table, KeyConditionExpression: "pk = :pk", ExpressionAttributeValues: { ":pk": { S: pk } } }))),
  );
  const inbox = rows.flatMap((r) => r.Items ?? [])[0].connection_id.S!;
  const ghost = { pk: { S: "T#acme#SUBSCRIBERS" }, sk: { S: "C#ghost-connection" } };
  await dynamo.send(new PutItemCommand({ TableName: t.runtime.table, Item: { ...ghost, connection_id: { S: "ghost-connection" }, all_sessions: { BOOL: true } } }));
  const heard = globex.frames.length;
  streamsCalls.clear();
  const result = await t.runtime.invoke<{ batchItemFailures: unknown[] }>("streams", { Records: await allRecords(t) });
  expect(result.batchItemFailures).toEqual([]);

  // The replayed batch is the invocation that pushed the most (the poller may run small batches meanwhile).
  const replay = [...streamsCalls.values()].sort((x, y) => y.pushes.length - x.pushes.length)[0];
  // One Query per shard of each tenant: every shard read once.
  expect(replay.subscriberQueries.sort()).toEqual([...shards("acme"), ...shards("globex")].sort());
  expect(t.runtime.config.subscriberShards).toBeGreaterThan(1);
  const pushedTo = (id: string) => replay.pushes.filter((pushed) => pushed === id).length;
  expect(pushedTo(inbox)).toBeGreaterThanOrEqual(5); // requests, resolved and badges
  // Events side by side may all reach the dead connection before its 410 returns; later ones in an item's order do not.
  expect(pushedTo("ghost-connection")).toBeGreaterThan(0);
  expect(pushedTo("ghost-connection")).toBeLessThan(pushedTo(inbox));
  expect((await dynamo.send(new GetItemCommand({ TableName: t.runtime.table, Key: ghost, ConsistentRead: true }))).Item).toBeUndefined();
  // The other tenant's inbox heard its own events again, and only those.
  await expect.poll(() => globex.frames.length - heard).toBeGreaterThanOrEqual(5);
  expect(new Set(globex.frames.slice(heard).map((f) => f.session_id))).toEqual(new Set(["audience_globex"]));
  dynamo.destroy();
});

it("looks into a session's message queue as its count drops to 0 only if a message ever joined it", async () => {
  const human = await t.token("human");
  const runnerToken = await t.token("runner");
  const runner = await t.socket(runnerToken);
  await runner.request({ action: "hello", sessions: [{ session_id: "quiet_s" }, { session_id: "chatty_s" }] });
  streamsCalls.clear();
  for (const s of ["quiet_s", "chatty_s"]) await runner.request({ action: "elicit", session_id: s, elicitation_id: `${s}_e`, params: { message: "ok?" } });
  expect((await t.http(runnerToken, "POST", "/v1/sessions/chatty_s/messages", { text: "held" })).body.status).toBe("held");
  for (const s of ["quiet_s", "chatty_s"]) await t.http(human, "POST", `/v1/sessions/${s}/events`, { type: "approval", elicitation_id: `${s}_e`, action: "accept" });
  await runner.next((f) => f.type === "session.message" && f.session_id === "chatty_s");
  await t.quietScan();
  const queueQueries = [...streamsCalls.values()].flatMap((calls) => calls.queueQueries);
  expect(queueQueries.filter((pk) => pk.endsWith("#quiet_s"))).toEqual([]);
  expect(queueQueries.filter((pk) => pk.endsWith("#chatty_s")).length).toBeGreaterThan(0);
});
