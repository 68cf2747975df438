/**
 * The tenant-wide indexes (sessions, pending sessions, history) spread a tenant over several
 * partitions. Their entries really are spread, the pages merged from them are exact (in order, each
 * entry once, unfiltered pages full), and an entry written before there were shards is still listed.
 */
import { DynamoDBClient, QueryCommand, UpdateItemCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, expect, it } from "vitest";
import { keys } from "../functions/domain/stores/keys.js";
import { mainTable } from "../functions/shared/tables.js";
import { startTollgate, type Harness } from "./support/tollgate.js";

const SESSIONS = Array.from({ length: 41 }, (_, i) => `shard_s${String(i).padStart(2, "0")}`);
/** Sessions with a pending elicitation left in them: every third. */
const PENDING = SESSIONS.filter((_, i) => i % 3 === 0);

let t: Harness;
let dynamo: DynamoDBClient;
let runner: string;
let human: string;
/** Resolved elicitations, by id: the action given. */
const decided = new Map<string, "accept" | "decline">();

beforeAll(async () => {
  t = await startTollgate();
  dynamo = new DynamoDBClient({ endpoint: t.runtime.dynamoEndpoint, region: "us-east-1", credentials: { accessKeyId: "local", secretAccessKey: "local" } });
  runner = await t.token("runner");
  human = await t.token("human");
  for (const [i, session] of SESSIONS.entries()) {
    expect((await t.http(runner, "PUT", `/v1/sessions/${session}`, {})).status).toBe(200);
    const raised = await t.http(runner, "POST", `/v1/sessions/${session}/events`, { type: "response.elicitation_request", elicitation_id: `shard_e${i}`, params: { message: "go?" } });
    expect(raised.status).toBe(201);
    if (PENDING.includes(session)) continue;
    const action = i % 2 === 0 ? "accept" : "decline";
    expect((await t.http(human, "POST", `/v1/sessions/${session}/events`, { type: "approval", elicitation_id: `shard_e${i}`, action })).status).toBe(200);
    decided.set(`shard_e${i}`, action);
  }
}, 120_000);
afterAll(async () => {
  dynamo?.destroy();
  await t?.stop();
});

/** The entries of one index partition, read straight from the index. */
async function entries(index: { name: string; partitionKey: string }, partition: string): Promise<string[]> {
  const out = await dynamo.send(
    new QueryCommand({
      TableName: t.runtime.table,
      IndexName: index.name,
      KeyConditionExpression: "#p = :p",
      ExpressionAttributeNames: { "#p": index.partitionKey },
      ExpressionAttributeValues: { ":p": { S: partition } },
    }),
  );
  return (out.Items ?? []).map((item) => item.pk.S!);
}

/** Every page of a listing: the pages' lengths and their items. */
async function pages(path: string, field: "sessions" | "items") {
  const sizes: number[] = [];
  const items: any[] = [];
  for (let cursor: string | null = null; ; ) {
    const reply = await t.http(human, "GET", `${path}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    sizes.push(reply.body[field].length);
    items.push(...reply.body[field]);
    cursor = reply.body.next_cursor;
    if (!cursor) return { sizes, items };
  }
}

it("spreads each index over its shards, every entry in the shard its id hashes to", async () => {
  const { sessionsByTenant, pendingSessions, history } = mainTable.indexes;
  for (const index of [sessionsByTenant, pendingSessions, history]) {
    const perShard = await Promise.all(keys.indexShards("acme").map((partition) => entries(index, partition)));
    expect(perShard.filter((shard) => shard.length > 0).length, index.name).toBe(mainTable.indexShards);
    const all = perShard.flat();
    expect(new Set(all).size, index.name).toBe(all.length);
  }
  expect((await entries(sessionsByTenant, keys.sessionIndex("acme", SESSIONS[5]))).includes(keys.session("acme", SESSIONS[5]).pk)).toBe(true);
  expect((await entries(history, keys.history("acme", "", "shard_e1").history_pk)).includes(keys.elicitation("acme", "shard_e1").pk)).toBe(true);
});

it("pages the sessions in id order, each once, every page full but the last", async () => {
  const { sizes, items } = await pages("/v1/sessions?limit=7", "sessions");
  expect(items.map((s) => s.session_id)).toEqual([...SESSIONS].sort());
  expect(sizes.slice(0, -1).every((size) => size === 7)).toBe(true);
  const pending = await pages("/v1/sessions?pending=true&limit=4", "sessions");
  expect(pending.items.map((s) => s.session_id)).toEqual([...PENDING].sort());
  expect(pending.items.every((s) => s.pending_elicitations_count === 1)).toBe(true);
});

it("pages the history newest first, each decision once, with and without a filter", async () => {
  const all = await pages("/v1/history?limit=5", "items");
  const ids = all.items.map((item) => item.elicitation_id);
  expect(new Set(ids)).toEqual(new Set(decided.keys()));
  expect(ids.length).toBe(decided.size);
  const order = all.items.map((item) => `${item.verdict.resolved_at}#${item.elicitation_id}`);
  expect(order).toEqual([...order].sort().reverse());
  expect(all.sizes.slice(0, -1).every((size) => size === 5)).toBe(true);
  // A filtered page ends where the shard read least far ended, or the next would skip what that shard holds after it.
  const expected = [...decided].filter(([, a]) => a === "decline").map(([id]) => id);
  for (const limit of [1, 2, 3]) {
    const declined = await pages(`/v1/history?limit=${limit}&action=decline`, "items");
    expect(declined.items.map((item) => item.elicitation_id).sort(), `limit ${limit}`).toEqual(expected.sort());
  }
});

it("still lists, once, a session and a decision whose index entries were written before there were shards", async () => {
  // Entries of before sit in the tenant's one partition of then, which is shard 0's key now.
  const session = SESSIONS.find((id) => keys.sessionIndex("acme", id) !== "T#acme")!;
  const decision = [...decided.keys()].find((id) => keys.history("acme", "", id).history_pk !== "T#acme")!;
  const moveTo = async (key: { pk: string; sk: string }, attribute: string) =>
    dynamo.send(
      new UpdateItemCommand({
        TableName: t.runtime.table,
        Key: { pk: { S: key.pk }, sk: { S: key.sk } },
        UpdateExpression: "SET #a = :old",
        ExpressionAttributeNames: { "#a": attribute },
        ExpressionAttributeValues: { ":old": { S: "T#acme" } },
      }),
    );
  await moveTo(keys.session("acme", session), "tenant_pk");
  await moveTo(keys.elicitation("acme", decision), "history_pk");
  expect(await entries(mainTable.indexes.sessionsByTenant, "T#acme")).toContain(keys.session("acme", session).pk);

  const listed = (await pages("/v1/sessions?limit=6", "sessions")).items.map((s) => s.session_id);
  expect(listed).toEqual([...SESSIONS].sort());
  const history = (await pages("/v1/history?limit=4", "items")).items.map((item) => item.elicitation_id);
  expect(history.filter((id) => id === decision)).toHaveLength(1);
  expect(history).toHaveLength(decided.size);
});
