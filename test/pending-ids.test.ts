/**
 * A session lists its own pending elicitations on its item (`pending_ids`, eight at most), changed in the
 * raise's and the resolution's transactions with its count: no row per pending elicitation under the
 * session but for those past the eighth. Elicitations raised before (a `P#` row under the session, no
 * id on it) still show, resolve and cancel.
 */
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient, TransactWriteCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, expect, it } from "vitest";
import { hashOf } from "../functions/domain/canonical.js";
import { startTollgate, type Harness } from "./support/tollgate.js";

let t: Harness;
let human: string;
let runner: string;
let db: DynamoDBDocumentClient;

beforeAll(async () => {
  t = await startTollgate();
  human = await t.token("human");
  runner = await t.token("runner");
  db = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint: t.runtime.dynamoEndpoint, region: "us-east-1", credentials: { accessKeyId: "local", secretAccessKey: "local" } }));
});
afterAll(async () => {
  db?.destroy();
  await t?.stop();
});

const raise = (session: string, id: string) =>
  t.http(runner, "POST", `/v1/sessions/${session}/events`, { type: "response.elicitation_request", elicitation_id: id, params: { message: `May I ${id}?` } });
const decline = (session: string, id: string) => t.http(human, "POST", `/v1/sessions/${session}/events`, { type: "approval", elicitation_id: id, action: "decline" });

/** The items under a session's partition and the session item itself, as the table holds them. */
async function stored(sessionId: string) {
  const items = (await t.scan()) as Record<string, { S?: string; N?: string; SS?: string[] }>[];
  const partition = items.filter((i) => i.pk.S === `T#acme#S#${sessionId}`);
  const session = partition.find((i) => i.sk.S === "SESSION")!;
  return {
    count: Number(session.pending_count?.N ?? 0),
    ids: [...(session.pending_ids?.SS ?? [])].sort(),
    rows: partition.map((i) => i.sk.S!).filter((sk) => sk.startsWith("P#")),
  };
}

/** What the version before wrote for a raise: the elicitation without `listed_on_session`, a `P#` row, the count alone. */
async function raiseAsBefore(sessionId: string, id: string, createdAt: string) {
  const params = { message: `May I ${id}?` };
  const elicitation = {
    pk: `T#acme#E#${id}`,
    sk: "ELICITATION",
    kind: "elicitation",
    tenant: "acme",
    elicitation_id: id,
    session_id: sessionId,
    ancestors: [],
    owner_sub: "runner-1",
    params_json: JSON.stringify(params),
    params_hash: hashOf(params),
    created_at: createdAt,
    deadline: new Date(Date.parse(createdAt) + 86_400_000).toISOString(),
    status: "pending",
  };
  const event = { type: "response.elicitation_request", elicitation_id: id, session_id: sessionId, params, created_at: createdAt, deadline: elicitation.deadline };
  await db.send(
    new TransactWriteCommand({
      TransactItems: [
        { Put: { TableName: t.runtime.table, Item: elicitation } },
        { Put: { TableName: t.runtime.table, Item: { pk: `T#acme#S#${sessionId}`, sk: `P#${createdAt}#${id}`, kind: "pending", elicitation_id: id, event_json: JSON.stringify(event) } } },
        {
          Update: {
            TableName: t.runtime.table,
            Key: { pk: `T#acme#S#${sessionId}`, sk: "SESSION" },
            UpdateExpression: "ADD pending_count :one SET pending_pk = :t",
            ExpressionAttributeValues: { ":one": 1, ":t": "T#acme" },
          },
        },
      ],
    }),
  );
}

it("lists a session's pending elicitations on its item, with no row of their own, and takes each off as it resolves", async () => {
  expect((await t.http(runner, "PUT", "/v1/sessions/listed", {})).status).toBe(200);
  for (const id of ["listed_1", "listed_2", "listed_3"]) expect((await raise("listed", id)).status).toBe(201);
  expect(await stored("listed")).toEqual({ count: 3, ids: ["listed_1", "listed_2", "listed_3"], rows: [] });

  const snapshot = await t.http(human, "GET", "/v1/sessions/listed");
  expect(snapshot.body.pending_elicitations.map((e: { elicitation_id: string }) => e.elicitation_id)).toEqual(["listed_1", "listed_2", "listed_3"]);
  expect(snapshot.body.pending_elicitations[0]).toMatchObject({ type: "response.elicitation_request", session_id: "listed", params: { message: "May I listed_1?" } });

  expect((await decline("listed", "listed_2")).status).toBe(200);
  expect(await stored("listed")).toEqual({ count: 2, ids: ["listed_1", "listed_3"], rows: [] });
  const peek = await t.http(runner, "GET", "/v1/sessions/listed/peek");
  expect(peek.body.items.map((i: { elicitation_id: string }) => i.elicitation_id)).toEqual(["listed_1", "listed_3"]);

  expect((await t.http(runner, "POST", "/v1/sessions/listed/cancel", {})).body).toEqual({ cancelled: 2 });
  // The last id gone, DynamoDB drops the set.
  expect(await stored("listed")).toEqual({ count: 0, ids: [], rows: [] });
  expect((await t.http(human, "GET", "/v1/sessions/listed")).body.pending_elicitations).toEqual([]);
});

it("lists eight on the item and gives each one past the eighth a row, and shows, resolves and cancels them all in creation order", async () => {
  expect((await t.http(runner, "PUT", "/v1/sessions/crowded", {})).status).toBe(200);
  const ids = Array.from({ length: 10 }, (_, i) => `crowded_${String(i).padStart(2, "0")}`);
  for (const id of ids) expect((await raise("crowded", id)).status).toBe(201);
  const full = await stored("crowded");
  expect(full).toMatchObject({ count: 10, ids: ids.slice(0, 8) });
  expect(full.rows).toEqual([expect.stringContaining("crowded_08"), expect.stringContaining("crowded_09")]);
  const snapshot = await t.http(human, "GET", "/v1/sessions/crowded");
  expect(snapshot.body.pending_elicitations.map((e: { elicitation_id: string }) => e.elicitation_id)).toEqual(ids);
  expect(snapshot.body.pending_elicitation_ids).toEqual(ids);
  expect((await t.http(human, "GET", "/v1/sessions?ids=crowded")).body.sessions[0].pending_elicitation_ids).toEqual(ids);

  // One listed and one with a row resolve; the next raise finds room on the item again.
  expect((await decline("crowded", "crowded_03")).status).toBe(200);
  expect((await decline("crowded", "crowded_09")).status).toBe(200);
  expect((await raise("crowded", "crowded_10")).status).toBe(201);
  const after = await stored("crowded");
  expect(after).toEqual({ count: 9, ids: [...ids.slice(0, 8).filter((id) => id !== "crowded_03"), "crowded_10"].sort(), rows: [expect.stringContaining("crowded_08")] });
  const listed = (await t.http(human, "GET", "/v1/sessions?pending=true")).body.sessions.find((s: { session_id: string }) => s.session_id === "crowded");
  expect(listed.pending_elicitation_ids).toEqual([...ids.filter((id) => id !== "crowded_03" && id !== "crowded_09"), "crowded_10"]);

  expect((await t.http(runner, "POST", "/v1/sessions/crowded/cancel", {})).body).toEqual({ cancelled: 9 });
  expect(await stored("crowded")).toEqual({ count: 0, ids: [], rows: [] });
});

it("shows 100 of the ids of a session with more pending, beside its whole count", { timeout: 60_000 }, async () => {
  expect((await t.http(runner, "PUT", "/v1/sessions/swamped", {})).status).toBe(200);
  for (let i = 0; i < 101; i++) expect((await raise("swamped", `swamped_${String(i).padStart(3, "0")}`)).status).toBe(201);
  const [item] = (await t.http(human, "GET", "/v1/sessions?ids=swamped")).body.sessions;
  expect(item.pending_elicitations_count).toBe(101);
  expect(item.pending_elicitation_ids).toHaveLength(100);
  expect(new Set(item.pending_elicitation_ids).size).toBe(100);
  const snapshot = await t.http(human, "GET", "/v1/sessions/swamped");
  expect(snapshot.body.pending_elicitations).toHaveLength(101);
  expect(snapshot.body.pending_elicitation_ids).toHaveLength(100);
  expect((await t.http(runner, "POST", "/v1/sessions/swamped/cancel", {})).body).toEqual({ cancelled: 101 });
});

it("shows, resolves and cancels an elicitation raised before sessions listed them, beside new ones, in creation order", async () => {
  expect((await t.http(runner, "PUT", "/v1/sessions/upgraded", {})).status).toBe(200);
  await raiseAsBefore("upgraded", "before_1", new Date(Date.now() - 60_000).toISOString());
  await raiseAsBefore("upgraded", "before_2", new Date(Date.now() - 30_000).toISOString());
  expect((await raise("upgraded", "after_1")).status).toBe(201);
  expect(await stored("upgraded")).toMatchObject({ count: 3, ids: ["after_1"] });

  const snapshot = await t.http(human, "GET", "/v1/sessions/upgraded");
  expect(snapshot.body.pending_elicitations_count).toBe(3);
  // Lists read the ids the item does not hold yet.
  const listed = (await t.http(human, "GET", "/v1/sessions?ids=upgraded")).body.sessions[0];
  expect(listed.pending_elicitation_ids).toEqual(["after_1", "before_1", "before_2"]);
  expect((await t.http(runner, "PUT", "/v1/sessions/upgraded", {})).body.pending_elicitation_ids).toEqual(["after_1", "before_1", "before_2"]);
  expect(snapshot.body.pending_elicitation_ids).toEqual(["after_1", "before_1", "before_2"]);
  expect(snapshot.body.pending_elicitations.map((e: { elicitation_id: string }) => e.elicitation_id)).toEqual(["before_1", "before_2", "after_1"]);

  // Its resolution takes its row away with the count.
  expect((await decline("upgraded", "before_1")).status).toBe(200);
  expect(await stored("upgraded")).toEqual({ count: 2, ids: ["after_1"], rows: [expect.stringContaining("before_2")] });

  // Cancelling the run finds the old one through its row and the new one through the list.
  expect((await t.http(runner, "POST", "/v1/sessions/upgraded/cancel", {})).body).toEqual({ cancelled: 2 });
  expect(await stored("upgraded")).toEqual({ count: 0, ids: [], rows: [] });
  const verdict = await t.http(human, "GET", "/v1/elicitations/before_2");
  expect(verdict.body).toMatchObject({ status: "resolved", verdict: { action: "cancel", reason: "cancelled" } });
});
