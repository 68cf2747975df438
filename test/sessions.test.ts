/** The pending index from DynamoDB: lists, batch lookups, snapshots with descendants, peek, live events. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTollgate, type Harness } from "./support/tollgate.js";

let t: Harness;
let human: string;
let runner: string;

beforeAll(async () => {
  t = await startTollgate();
  human = await t.token("human");
  runner = await t.token("runner");
});
afterAll(() => t?.stop());

const put = (id: string, body: object = {}) => t.http(runner, "PUT", `/v1/sessions/${id}`, body);
const raise = (session: string, id: string, params: object = { message: `May I ${id}?` }) =>
  t.http(runner, "POST", `/v1/sessions/${session}/events`, { type: "response.elicitation_request", elicitation_id: id, params });
const approve = (session: string, id: string) => t.http(human, "POST", `/v1/sessions/${session}/events`, { type: "approval", elicitation_id: id, action: "decline" });
const ids = (items: { elicitation_id: string }[]) => items.map((e) => e.elicitation_id);

async function listAll(query: string, limit: number) {
  const seen: { session_id: string; pending_elicitations_count: number }[] = [];
  let cursor: string | null = null;
  do {
    const page = await t.http(human, "GET", `/v1/sessions?limit=${limit}${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    expect(page.status).toBe(200);
    seen.push(...page.body.sessions);
    cursor = page.body.next_cursor;
  } while (cursor);
  return seen;
}

describe("lists and counts", () => {
  it("agree with the ground truth after random raises and resolutions", { timeout: 120_000 }, async () => {
    const truth = new Map<string, Set<string>>();
    for (let s = 0; s < 8; s++) {
      await put(`gt_${s}`);
      truth.set(`gt_${s}`, new Set());
    }
    let n = 0;
    for (let step = 0; step < 80; step++) {
      const session = `gt_${Math.floor(Math.random() * 8)}`;
      const open = [...truth.get(session)!];
      if (open.length > 0 && Math.random() < 0.45) {
        const id = open[Math.floor(Math.random() * open.length)];
        expect((await approve(session, id)).status).toBe(200);
        truth.get(session)!.delete(id);
      } else {
        const id = `gt_el_${n++}`;
        expect((await raise(session, id)).status).toBe(201);
        truth.get(session)!.add(id);
      }
    }
    const expected = [...truth].map(([session_id, open]) => ({
      session_id,
      pending_elicitations_count: open.size,
      pending_elicitation_ids: [...open].sort(),
      awaiting_approval: open.size > 0,
    }));
    const listed = (await listAll("", 3)).filter((s) => s.session_id.startsWith("gt_"));
    expect(listed).toEqual(expected.map((e) => expect.objectContaining(e)));
    const batch = await t.http(human, "GET", `/v1/sessions?ids=${[...truth.keys(), "gt_unknown"].join(",")}`);
    expect(batch.body.sessions).toEqual([
      ...expected.map((e) => expect.objectContaining(e)),
      { session_id: "gt_unknown", parent_session_id: null, title: null, pending_elicitations_count: 0, pending_elicitation_ids: [], awaiting_approval: false, updated_at: null },
    ]);
    for (const [session, open] of truth) {
      const snapshot = await t.http(human, "GET", `/v1/sessions/${session}`);
      expect(new Set(ids(snapshot.body.pending_elicitations))).toEqual(open);
      const created = snapshot.body.pending_elicitations.map((e: { created_at: string }) => e.created_at);
      expect(created).toEqual([...created].sort());
    }
    // A pending list reads each count with its page, so it is exact at once, whatever the index still holds.
    const pending = (await listAll("&pending=true", 2)).filter((s) => s.session_id.startsWith("gt_"));
    expect(pending).toEqual(expected.filter((e) => e.pending_elicitations_count > 0).map((e) => expect.objectContaining(e)));
  });

  it("pages over 250 sessions with each exactly once, and refuses a forged cursor", async () => {
    await Promise.all(Array.from({ length: 250 }, (_, i) => put(`page_${String(i).padStart(3, "0")}`)));
    const seen = (await listAll("", 37)).map((s) => s.session_id).filter((id) => id.startsWith("page_"));
    expect(seen).toHaveLength(250);
    expect(new Set(seen).size).toBe(250);

    const first = await t.http(human, "GET", "/v1/sessions?limit=5");
    const cursor: string = first.body.next_cursor;
    const [payload, mac] = cursor.split(".");
    const forged = `${Buffer.from(JSON.stringify({ after: "page_200" })).toString("base64url")}.${mac}`;
    for (const bad of [forged, `${payload}.${mac.slice(0, -2)}xx`, "not-a-cursor", `${payload}`]) {
      const refused = await t.http(human, "GET", `/v1/sessions?limit=5&cursor=${encodeURIComponent(bad)}`);
      expect(refused.status, bad).toBe(400);
      expect(refused.body.error.code).toBe("bad_request");
    }
    // A cursor is bound to its tenant.
    const other = await t.token("human", "h", "globex");
    expect((await t.http(other, "GET", `/v1/sessions?limit=5&cursor=${encodeURIComponent(cursor)}`)).status).toBe(400);
  });

  it("refuses bad list parameters", async () => {
    for (const q of ["limit=0", "limit=201", "limit=abc", "pending=maybe", `ids=${Array.from({ length: 101 }, (_, i) => `s${i}`).join(",")}`, "ids=bad%20id", "color=blue"]) {
      expect((await t.http(human, "GET", `/v1/sessions?${q}`)).status, q).toBe(400);
    }
  });

  it("a refused limit says what it takes, however it is wrong", async () => {
    for (const path of ["/v1/sessions", "/v1/history"]) {
      for (const q of ["limit=abc", "limit=", "limit=0", "limit=2.5", "limit=201", "limit=5&limit=6"]) {
        const refused = await t.http(human, "GET", `${path}?${q}`);
        expect(refused, `${path}?${q}`).toEqual({ status: 400, body: { error: { code: "bad_request", message: "limit: must be an integer from 1 to 200" } } });
      }
    }
  });

  it("a refused id says which id it is: the path's, or one of ids", async () => {
    const service = await t.token("service");
    const calls: [string, string, string][] = [
      ["GET", "/v1/sessions/bad%20id", "session id"],
      ["PUT", "/v1/sessions/bad%20id", "session id"],
      ["GET", "/v1/sessions/bad%20id/peek", "session id"],
      ["POST", "/v1/sessions/bad%20id/events", "session id"],
      ["POST", "/v1/sessions/bad%20id/cancel", "session id"],
      ["POST", "/v1/sessions/bad%20id/messages", "session id"],
      ["GET", "/v1/elicitations/bad%20id", "elicitation id"],
      ["POST", "/v1/elicitations/bad%20id/link", "elicitation id"],
      ["GET", "/v1/notification-targets/bad%20id", "target id"],
      ["DELETE", "/v1/notification-targets/bad%20id", "target id"],
      ["POST", "/v1/notification-targets/bad%20id/rotate", "target id"],
      ["GET", "/v1/sessions?ids=s1,bad%20id", "ids"],
    ];
    for (const [method, path, name] of calls) {
      const refused = await t.http(service, method, path);
      expect(refused, `${method} ${path}`).toEqual({ status: 400, body: { error: { code: "bad_request", message: `${name}: must be 1 to 128 characters of A-Z a-z 0-9 _ . : -` } } });
    }
    const put = await t.http(service, "PUT", "/v1/notification-targets/bad%20id", { kind: "webhook", url: "http://127.0.0.1:9/hook" });
    expect(put.body.error.message).toBe("target id: must be 1 to 128 characters of A-Z a-z 0-9 _ . : -");
  });
});

describe("the sparse pending index", () => {
  /** Whether each session is in the sparse index (its item holds the index's key), once the stream has settled. */
  async function indexed(...sessionIds: string[]) {
    const items = (await t.quietScan()) as Record<string, { S?: string; N?: string }>[];
    return sessionIds.map((id) => {
      const item = items.find((i) => i.kind?.S === "session" && i.session_id?.S === id);
      return { session_id: id, count: Number(item?.pending_count?.N), indexed: item?.pending_pk !== undefined };
    });
  }
  const pendingIds = async () => (await listAll("&pending=true", 50)).map((s) => s.session_id).filter((id) => id.startsWith("lazy_"));

  it("keeps a session whose count fell to zero until a pending list finds it there, and a raise since keeps it in", async () => {
    for (const id of ["lazy_a", "lazy_b", "lazy_c"]) await put(id);
    for (const id of ["lazy_a", "lazy_b"]) {
      await raise(id, `${id}_1`);
      await approve(id, `${id}_1`);
    }
    // Neither the drop to zero nor the stream's reaction to it writes the index.
    expect(await indexed("lazy_a", "lazy_b", "lazy_c")).toEqual([
      { session_id: "lazy_a", count: 0, indexed: true },
      { session_id: "lazy_b", count: 0, indexed: true },
      { session_id: "lazy_c", count: 0, indexed: false },
    ]);
    await raise("lazy_b", "lazy_b_2");
    expect(await pendingIds()).toEqual(["lazy_b"]);
    // The list took out the one it found at zero, and kept the one a raise brought back to one.
    expect(await indexed("lazy_a", "lazy_b")).toEqual([
      { session_id: "lazy_a", count: 0, indexed: false },
      { session_id: "lazy_b", count: 1, indexed: true },
    ]);
    await approve("lazy_b", "lazy_b_2");
    await raise("lazy_a", "lazy_a_2");
    expect(await pendingIds()).toEqual(["lazy_a"]);
    expect(await indexed("lazy_a", "lazy_b")).toEqual([
      { session_id: "lazy_a", count: 1, indexed: true },
      { session_id: "lazy_b", count: 0, indexed: false },
    ]);
  });
});

describe("a three-level tree", () => {
  it("shows a grandchild's prompt in its ancestors' snapshots and to their subscribers, until answered", async () => {
    await put("tree_root", { title: "orchestrator" });
    await put("tree_mid", { parent_session_id: "tree_root", title: "codex:plan" });
    await put("tree_leaf", { parent_session_id: "tree_mid", title: "codex:fetch" });
    const rootWatcher = await t.socket(human);
    await rootWatcher.request({ action: "subscribe", sessions: ["tree_root"] });
    const leafWatcher = await t.socket(human);
    await leafWatcher.request({ action: "subscribe", sessions: ["tree_leaf"] });
    const outsider = await t.socket(human);
    await put("tree_other");
    await outsider.request({ action: "subscribe", sessions: ["tree_other"] });

    expect((await raise("tree_leaf", "tree_el")).status).toBe(201);
    for (const ancestor of ["tree_root", "tree_mid"]) {
      const snapshot = await t.http(human, "GET", `/v1/sessions/${ancestor}`);
      expect(ids(snapshot.body.descendant_pending_elicitations)).toEqual(["tree_el"]);
      expect(snapshot.body.pending_elicitations).toEqual([]);
    }
    const leaf = await t.http(human, "GET", "/v1/sessions/tree_leaf");
    expect(ids(leaf.body.pending_elicitations)).toEqual(["tree_el"]);
    expect(leaf.body.descendant_pending_elicitations).toEqual([]);
    for (const watcher of [rootWatcher, leafWatcher]) {
      await watcher.next((f) => f.type === "response.elicitation_request" && f.elicitation_id === "tree_el");
      await watcher.next((f) => f.type === "session.badge" && f.session_id === "tree_leaf" && f.pending_elicitations_count === 1);
    }

    await approve("tree_leaf", "tree_el");
    for (const watcher of [rootWatcher, leafWatcher]) {
      await watcher.next((f) => f.type === "response.elicitation_resolved" && f.elicitation_id === "tree_el" && f.resolved_by === "human-1");
      await watcher.next((f) => f.type === "session.badge" && f.session_id === "tree_leaf" && f.pending_elicitations_count === 0);
    }
    for (const ancestor of ["tree_root", "tree_mid"]) {
      expect((await t.http(human, "GET", `/v1/sessions/${ancestor}`)).body.descendant_pending_elicitations).toEqual([]);
    }
    expect(outsider.count((f) => f.elicitation_id === "tree_el" || f.session_id === "tree_leaf")).toBe(0);
  });

  it("refuses a missing parent, a change of parent, a cycle onto itself and a tree deeper than 16", async () => {
    expect((await put("orphan", { parent_session_id: "no_such_parent" })).status).toBe(404);
    await put("fixed_parent_a");
    await put("fixed_parent_b");
    await put("fixed_child", { parent_session_id: "fixed_parent_a" });
    expect((await put("fixed_child", { parent_session_id: "fixed_parent_b" })).status).toBe(409);
    expect((await put("fixed_child", { title: "renamed" })).body.title).toBe("renamed");
    expect((await put("selfish", { parent_session_id: "selfish" })).status).toBe(409);
    await put("deep_0");
    for (let d = 1; d <= 16; d++) expect((await put(`deep_${d}`, { parent_session_id: `deep_${d - 1}` })).status).toBe(200);
    expect((await put("deep_17", { parent_session_id: "deep_16" })).status).toBe(400);
  });
});

describe("peek and the standalone read", () => {
  it("projects pending prompts compactly, with form fields when there is a form", async () => {
    await put("peek_s");
    await raise("peek_s", "peek_plain", { message: "Run 'rm -rf build'?" });
    await raise("peek_s", "peek_form", {
      message: "Where to deploy?",
      requestedSchema: { type: "object", properties: { target: { type: "string", enum: ["staging", "production"] }, notify: { type: "boolean" } }, required: ["target"] },
    });
    const peek = await t.http(runner, "GET", "/v1/sessions/peek_s/peek");
    expect(peek.body).toEqual({
      items: [
        { type: "pending_elicitation", elicitation_id: "peek_plain", prompt: "Run 'rm -rf build'?" },
        { type: "pending_elicitation", elicitation_id: "peek_form", prompt: "Where to deploy?", fields: ["target", "notify"] },
      ],
    });
    expect((await t.http(human, "GET", "/v1/sessions/peek_s/peek")).status).toBe(200);
    const bad = await t.http(human, "POST", "/v1/sessions/peek_s/events", { type: "approval", elicitation_id: "peek_form", action: "accept", content: { target: "moon" } });
    expect(bad.status).toBe(400);
    const good = await t.http(human, "POST", "/v1/sessions/peek_s/events", { type: "approval", elicitation_id: "peek_form", action: "accept", content: { target: "staging", notify: true } });
    expect(good.status).toBe(200);
    const read = await t.http(human, "GET", "/v1/elicitations/peek_form");
    expect(read.body).toMatchObject({
      session_id: "peek_s",
      status: "resolved",
      event: { params: { message: "Where to deploy?" } },
      verdict: { action: "accept", content: { target: "staging", notify: true } },
    });
    expect((await t.http(runner, "GET", "/v1/sessions/peek_s/peek")).body.items.map((i: { elicitation_id: string }) => i.elicitation_id)).toEqual(["peek_plain"]);
  });
});

describe("subscribers", () => {
  it("without badges, hears no session.badge and counts exactly from the listed ids and the events since subscribed", async () => {
    await put("counted_s");
    await raise("counted_s", "counted_1");
    const counter = await t.socket(human);
    expect((await counter.request({ action: "subscribe", sessions: "*", badges: false })).type).toBe("subscribed");
    const hearer = await t.socket(human);
    expect((await hearer.request({ action: "subscribe", sessions: ["counted_s"] })).type).toBe("subscribed");
    const listed = (await t.http(human, "GET", "/v1/sessions?ids=counted_s")).body.sessions[0];
    expect(listed).toMatchObject({ pending_elicitations_count: 1, pending_elicitation_ids: ["counted_1"] });

    await raise("counted_s", "counted_2");
    await raise("counted_s", "counted_3");
    await approve("counted_s", "counted_1");
    await approve("counted_s", "counted_3");
    await raise("counted_s", "counted_4");
    await hearer.next((f) => f.type === "session.badge" && f.session_id === "counted_s" && f.pending_elicitations_count === 2);
    // Each elicitation's events come in its own order, not in one order with the others': wait for every one.
    for (const id of ["counted_2", "counted_3", "counted_4"]) await counter.next((f) => f.type === "response.elicitation_request" && f.elicitation_id === id);
    for (const id of ["counted_1", "counted_3"]) await counter.next((f) => f.type === "response.elicitation_resolved" && f.elicitation_id === id);
    // The protocol's rule: the ids listed, plus those requested since, minus those resolved since.
    const heard = counter.frames.filter((f) => f.session_id === "counted_s");
    const resolved = new Set(heard.filter((f) => f.type === "response.elicitation_resolved").map((f) => f.elicitation_id));
    const counted = new Set([...listed.pending_elicitation_ids, ...heard.filter((f) => f.type === "response.elicitation_request").map((f) => f.elicitation_id)]);
    for (const id of resolved) counted.delete(id);
    expect([...counted].sort()).toEqual(["counted_2", "counted_4"]);
    expect((await t.http(human, "GET", "/v1/sessions?ids=counted_s")).body.sessions[0].pending_elicitation_ids).toEqual(["counted_2", "counted_4"]);
    expect(counter.count((f) => f.type === "session.badge")).toBe(0);
    expect(hearer.count((f) => f.type === "session.badge" && f.session_id === "counted_s")).toBeGreaterThanOrEqual(5);

    // The last subscribe says: without `badges: false` the connection hears them again.
    expect((await counter.request({ action: "subscribe", sessions: "*" })).type).toBe("subscribed");
    await approve("counted_s", "counted_2");
    await counter.next((f) => f.type === "session.badge" && f.session_id === "counted_s" && f.pending_elicitations_count === 1);
  });

  it("prunes a subscriber whose connection is gone without a $disconnect (a 410 from @connections)", async () => {
    const { DynamoDBClient, GetItemCommand, PutItemCommand } = await import("@aws-sdk/client-dynamodb");
    const db = new DynamoDBClient({ endpoint: t.runtime.dynamoEndpoint, region: "us-east-1", credentials: { accessKeyId: "local", secretAccessKey: "local" } });
    const key = { pk: { S: "T#acme#SUBSCRIBERS" }, sk: { S: "C#ghost-connection" } };
    await db.send(new PutItemCommand({ TableName: t.runtime.table, Item: { ...key, connection_id: { S: "ghost-connection" }, all_sessions: { BOOL: true } } }));
    await put("prune_s");
    await raise("prune_s", "prune_el");
    await expect.poll(async () => (await db.send(new GetItemCommand({ TableName: t.runtime.table, Key: key }))).Item).toBeUndefined();
    db.destroy();
  });
});

describe("hello", () => {
  it("changes nothing when one of its sessions is refused", async () => {
    const other = await t.token("runner", "someone_else");
    await t.http(other, "PUT", "/v1/sessions/not_yours", {});
    const socket = await t.socket(runner);
    const before = await t.quietScan();
    const refused = await socket.request({ action: "hello", sessions: [{ session_id: "brand_new" }, { session_id: "not_yours" }] });
    expect(refused).toMatchObject({ type: "error", code: "forbidden" });
    const orphan = await socket.request({ action: "hello", sessions: [{ session_id: "brand_new" }, { session_id: "new_child", parent_session_id: "nowhere" }] });
    expect(orphan).toMatchObject({ type: "error", code: "not_found" });
    expect(await t.quietScan()).toEqual(before);
    // A parent earlier in the same hello may be named by a child after it.
    const family = await socket.request({ action: "hello", sessions: [{ session_id: "hello_parent" }, { session_id: "hello_child", parent_session_id: "hello_parent" }] });
    expect(family.type).toBe("hello.ok");
    expect((await t.http(human, "GET", "/v1/sessions/hello_child")).body.parent_session_id).toBe("hello_parent");
  });

  // 1,001 sessions registered over HTTP: a heavy test, given the time a busy machine needs for it.
  it("caps what one connection binds and subscribes to", { timeout: 120_000 }, async () => {
    const socket = await t.socket(human);
    for (let batch = 0; batch < 10; batch++) {
      const ids = Array.from({ length: 100 }, (_, i) => `cap_${batch}_${i}`);
      await Promise.all(ids.map((id) => put(id)));
      expect((await socket.request({ action: "subscribe", sessions: ids })).type).toBe("subscribed");
    }
    await put("cap_one_more");
    expect(await socket.request({ action: "subscribe", sessions: ["cap_one_more"] })).toMatchObject({ type: "error", code: "bad_request" });
    expect((await socket.request({ action: "subscribe", sessions: "*" })).type).toBe("subscribed");
  });
});

describe("tenants", () => {
  it("tenant B sees none of tenant A's sessions, snapshots, peeks or events", async () => {
    await put("sealed", { title: "secret plan" });
    await raise("sealed", "sealed_el");
    const bHuman = await t.token("human", "intruder", "globex");
    const bRunner = await t.token("runner", "intruder", "globex");
    const bWatcher = await t.socket(bHuman);
    await bWatcher.request({ action: "subscribe", sessions: "*" });
    expect((await bWatcher.request({ action: "subscribe", sessions: ["sealed"] })).code).toBe("not_found");
    expect((await listAll("", 50)).some((s) => s.session_id === "sealed")).toBe(true);
    const bList = await t.http(bHuman, "GET", "/v1/sessions?limit=200");
    expect(bList.body.sessions).toEqual([]);
    expect((await t.http(bHuman, "GET", "/v1/sessions?ids=sealed")).body.sessions[0]).toMatchObject({ pending_elicitations_count: 0, title: null });
    expect((await t.http(bHuman, "GET", "/v1/sessions?pending=true")).body.sessions).toEqual([]);
    expect((await t.http(bHuman, "GET", "/v1/sessions/sealed")).status).toBe(404);
    expect((await t.http(bRunner, "GET", "/v1/sessions/sealed/peek")).status).toBe(404);
    expect((await t.http(bHuman, "GET", "/v1/elicitations/sealed_el")).status).toBe(404);
    await approve("sealed", "sealed_el");
    await new Promise((r) => setTimeout(r, 300));
    expect(bWatcher.count((f) => f.type !== "subscribed" && f.type !== "error")).toBe(0);
  });
});
