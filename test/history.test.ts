/**
 * The history of decisions against a ground truth kept by the test: random raises and resolutions
 * by several humans, the deadline, a runner gone and a runner's cancel, in two tenants; filters,
 * order, pagination (each decision exactly once) and the JSON-lines export.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, startTollgate, type Harness } from "./support/tollgate.js";

interface Truth {
  elicitation_id: string;
  session_id: string;
  ancestors: string[];
  message: string;
  action: string;
  said?: string;
  reason: string;
  resolved_by: string;
  via: string;
  resolved_at?: string;
  created_at?: string;
}

/** A small seeded generator, so a failure can be replayed. */
function random(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let x = Math.imul(s ^ (s >>> 15), 1 | s);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const SEED = Number(process.env.HISTORY_SEED ?? 20261201);
const SESSIONS: Record<string, string[]> = { h_root: [], h_child: ["h_root"], h_grand: ["h_root", "h_child"], h_other: [] };
const HUMANS = ["user_a", "user_b", "user_c"];

let t: Harness;
const truth: Truth[] = [];
const pendingIds: string[] = [];

/** Newest first: by resolution time, then id (the index's sort key). */
const newestFirst = (a: Truth, b: Truth) => `${b.resolved_at}#${b.elicitation_id}`.localeCompare(`${a.resolved_at}#${a.elicitation_id}`);

const entryOf = (x: Truth) => ({
  elicitation_id: x.elicitation_id,
  session_id: x.session_id,
  params: { message: x.message },
  created_at: x.created_at,
  deadline: expect.any(String),
  verdict: {
    action: x.action,
    ...(x.said !== undefined ? { message: x.said } : {}),
    reason: x.reason,
    resolved_by: x.resolved_by,
    resolved_at: x.resolved_at,
    via: x.via,
  },
  decision_ms: Date.parse(x.resolved_at!) - Date.parse(x.created_at!),
});

async function history(token: string, query: string) {
  const reply = await t.http(token, "GET", `/v1/history?${query}`);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body as { items: any[]; next_cursor: string | null };
}

/** Every page of a listing, and how many pages it took. */
async function allPages(token: string, query: string) {
  const items: any[] = [];
  let pages = 0;
  for (let cursor: string | null = null; ; ) {
    const page = await history(token, `${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    items.push(...page.items);
    pages++;
    cursor = page.next_cursor;
    if (!cursor) return { items, pages };
  }
}

beforeAll(async () => {
  t = await startTollgate({ reconnectGraceSeconds: 1 });
  const next = random(SEED);
  const pick = <T>(list: T[]) => list[Math.floor(next() * list.length)];
  const runner = await t.token("runner");
  for (const [id, ancestors] of Object.entries(SESSIONS)) await t.http(runner, "PUT", `/v1/sessions/${id}`, ancestors.length ? { parent_session_id: ancestors.at(-1) } : {});

  const raise = async (id: string, session: string, timeout?: number) => {
    const message = `May I do ${id}?`;
    const reply = await t.http(runner, "POST", `/v1/sessions/${session}/events`, {
      type: "response.elicitation_request",
      elicitation_id: id,
      params: { message },
      ...(timeout ? { timeout_seconds: timeout } : {}),
    });
    expect(reply.status).toBe(201);
    return { elicitation_id: id, session_id: session, ancestors: SESSIONS[session], message };
  };

  // Humans and runners' cancels, in a random order over random sessions.
  for (let i = 0; i < 36; i++) {
    const session = pick(Object.keys(SESSIONS));
    const raised = await raise(`h_${String(i).padStart(2, "0")}`, session);
    const fate = next();
    if (fate < 0.1) {
      pendingIds.push(raised.elicitation_id);
      continue;
    }
    if (fate < 0.2) {
      await t.http(runner, "POST", `/v1/sessions/${session}/events`, { type: "response.elicitation_resolved", elicitation_id: raised.elicitation_id });
      truth.push({ ...raised, action: "cancel", reason: "cancelled", resolved_by: "runner-1", via: "runner" });
      continue;
    }
    const who = pick(HUMANS);
    const action = next() < 0.5 ? "accept" : "decline";
    const said = next() < 0.5 ? `reason ${i} from ${who}` : undefined;
    const reply = await t.http(await t.token("human", who), "POST", `/v1/sessions/${session}/events`, {
      type: "approval",
      elicitation_id: raised.elicitation_id,
      action,
      ...(said ? { message: said } : {}),
    });
    expect(reply.status).toBe(200);
    truth.push({ ...raised, action, said, reason: "answered", resolved_by: who, via: "token" });
  }
  // The deadline, twice.
  for (const id of ["h_deadline_1", "h_deadline_2"]) truth.push({ ...(await raise(id, "h_child", 1)), action: "decline", reason: "timeout", resolved_by: "tollgate", via: "deadline" });
  // A runner gone past the reconnect grace.
  const socket = await t.socket(runner);
  await socket.request({ action: "hello", sessions: [{ session_id: "h_grand" }] });
  expect((await socket.request({ action: "elicit", session_id: "h_grand", elicitation_id: "h_gone", params: { message: "May I do h_gone?" } })).type).toBe("elicitation.parked");
  socket.close();
  truth.push({
    elicitation_id: "h_gone",
    session_id: "h_grand",
    ancestors: SESSIONS.h_grand,
    message: "May I do h_gone?",
    action: "cancel",
    reason: "runner_gone",
    resolved_by: "tollgate",
    via: "runner",
  });

  // Another tenant's decisions, which acme never sees.
  const theirRunner = await t.token("runner", "runner-1", "globex");
  await t.http(theirRunner, "PUT", "/v1/sessions/h_root", {});
  for (const id of ["h_00", "h_globex"]) {
    await t.http(theirRunner, "POST", "/v1/sessions/h_root/events", { type: "response.elicitation_request", elicitation_id: id, params: { message: "theirs" } });
    await t.http(await t.token("human", "user_a", "globex"), "POST", "/v1/sessions/h_root/events", { type: "approval", elicitation_id: id, action: "accept" });
  }

  // The times, as the elicitations' own reads tell them, once every resolution happened.
  const human = await t.token("human", "reader");
  for (const x of truth) {
    const read = await eventually(async () => {
      const r = await t.http(human, "GET", `/v1/elicitations/${x.elicitation_id}`);
      expect(r.body.status).toBe("resolved");
      return r.body;
    }, 30_000);
    x.created_at = read.event.created_at;
    x.resolved_at = read.verdict.resolved_at;
  }
  truth.sort(newestFirst);
}, 120_000);
afterAll(() => t?.stop());

describe("GET /v1/history", () => {
  it("lists every decision of the tenant, newest first, each once across pages, and nothing pending", async () => {
    const human = await t.token("human", "auditor");
    const { items, pages } = await allPages(human, "limit=7");
    expect(items).toEqual(truth.map(entryOf));
    expect(pages).toBeGreaterThanOrEqual(Math.ceil(truth.length / 7));
    for (const id of pendingIds) expect(items.map((e) => e.elicitation_id)).not.toContain(id);
    // A service token reads it too; a runner may not.
    expect((await allPages(await t.token("service"), "limit=200")).items).toEqual(truth.map(entryOf));
    expect((await t.http(await t.token("runner"), "GET", "/v1/history")).body.error.code).toBe("forbidden");
  });

  it("filters by session (with or without descendants), by who resolved, by action and by time", async () => {
    const human = await t.token("human", "auditor");
    const cases: [string, (x: Truth) => boolean][] = [
      ["session_id=h_root", (x) => x.session_id === "h_root"],
      ["session_id=h_root&descendants=true", (x) => x.session_id === "h_root" || x.ancestors.includes("h_root")],
      ["session_id=h_child&descendants=true", (x) => x.session_id === "h_child" || x.ancestors.includes("h_child")],
      ["session_id=h_grand&descendants=false", (x) => x.session_id === "h_grand"],
      ["resolved_by=user_b", (x) => x.resolved_by === "user_b"],
      ["resolved_by=tollgate", (x) => x.resolved_by === "tollgate"],
      ["action=decline", (x) => x.action === "decline"],
      ["action=cancel&session_id=h_grand", (x) => x.action === "cancel" && x.session_id === "h_grand"],
    ];
    const middle = truth[Math.floor(truth.length / 2)].resolved_at!;
    const late = truth[3].resolved_at!;
    cases.push([`since=${middle}`, (x) => x.resolved_at! >= middle]);
    cases.push([`until=${middle}`, (x) => x.resolved_at! < middle]);
    cases.push([`since=${middle}&until=${late}&resolved_by=user_a`, (x) => x.resolved_at! >= middle && x.resolved_at! < late && x.resolved_by === "user_a"]);
    for (const [query, keep] of cases) {
      const expected = truth.filter(keep).map(entryOf);
      expect((await allPages(human, `${query}&limit=3`)).items, query).toEqual(expected);
      expect((await allPages(human, `${query}&limit=200`)).items, query).toEqual(expected);
    }
    // A time with an offset is the same instant.
    const offset = new Date(Date.parse(middle) + 2 * 3_600_000).toISOString().replace("Z", "+02:00");
    expect((await allPages(human, `since=${encodeURIComponent(offset)}&limit=200`)).items).toEqual(truth.filter((x) => x.resolved_at! >= middle).map(entryOf));
  });

  it("keeps tenants sealed: their decisions, their cursors", async () => {
    const theirs = await allPages(await t.token("human", "user_a", "globex"), "limit=1");
    expect(theirs.items.map((e) => e.elicitation_id).sort()).toEqual(["h_00", "h_globex"]);
    expect(theirs.items.every((e) => e.params.message === "theirs")).toBe(true);
    const ours = await history(await t.token("human", "auditor"), "limit=2");
    expect(ours.items.map((e) => e.elicitation_id)).not.toContain("h_globex");
    const foreign = await t.http(await t.token("human", "user_a", "globex"), "GET", `/v1/history?cursor=${encodeURIComponent(ours.next_cursor!)}`);
    expect(foreign).toMatchObject({ status: 400, body: { error: { code: "bad_request", message: "cursor is not valid" } } });
    const sessionsCursor = (await t.http(await t.token("human"), "GET", "/v1/sessions?limit=1")).body.next_cursor;
    expect((await t.http(await t.token("human"), "GET", `/v1/history?cursor=${encodeURIComponent(sessionsCursor)}`)).status).toBe(400);
  });

  it("refuses a bad query with bad_request", async () => {
    const human = await t.token("human");
    for (const query of [
      "limit=0",
      "limit=201",
      "since=yesterday",
      "until=2026-13-01T00:00:00Z",
      "action=maybe",
      "session_id=bad%20id",
      "descendants=yes",
      "format=csv",
      "cursor=abc.def",
      "colour=red",
      "since=2026-12-02T00:00:00Z&until=2026-12-01T00:00:00Z",
    ]) {
      const reply = await t.http(human, "GET", `/v1/history?${query}`);
      expect(reply.status, query).toBe(400);
      expect(reply.body.error.code).toBe("bad_request");
    }
  });

  it("a time refused says the form it takes, and that a + in a query string is %2B", async () => {
    const human = await t.token("human");
    // Unencoded, the offset's + reaches Tollgate as a space (as through API Gateway).
    for (const query of ["since=2026-12-01T00:00:00+02:00", "until=2026-12-01"]) {
      const reply = await t.http(human, "GET", `/v1/history?${query}`);
      expect(reply, query).toEqual({ status: 400, body: { error: { code: "bad_request", message: expect.stringMatching(/^(since|until): must be an ISO time with an offset, .*%2B/) } } });
    }
  });

  it("exports JSON lines equal to the paged listing, page by page through the x-next-cursor header", async () => {
    const human = await t.token("human", "auditor");
    const lines: any[] = [];
    for (let cursor: string | null = null; ; ) {
      const response: Response = await fetch(`${t.runtime.httpUrl}/v1/history?format=jsonl&limit=5${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, {
        headers: { authorization: `Bearer ${human}` },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("application/x-ndjson");
      const text = await response.text();
      expect(text === "" || text.endsWith("\n")).toBe(true);
      lines.push(
        ...text
          .split("\n")
          .filter(Boolean)
          .map((line: string) => JSON.parse(line)),
      );
      cursor = response.headers.get("x-next-cursor");
      if (!cursor) break;
    }
    expect(lines).toEqual((await allPages(human, "limit=200")).items);
    expect(lines).toHaveLength(truth.length);
  });

  it("pages stay exact while new decisions arrive: those join the top, no page repeats or skips one", async () => {
    const human = await t.token("human", "auditor");
    const runner = await t.token("runner");
    const seen: any[] = [];
    let cursor: string | null = null;
    for (let i = 0; ; i++) {
      const page = await history(human, `limit=6${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      seen.push(...page.items);
      const id = `h_new_${i}`;
      await t.http(runner, "POST", "/v1/sessions/h_other/events", { type: "response.elicitation_request", elicitation_id: id, params: { message: "new?" } });
      await t.http(human, "POST", "/v1/sessions/h_other/events", { type: "approval", elicitation_id: id, action: "accept" });
      cursor = page.next_cursor;
      if (!cursor) break;
    }
    expect(seen).toEqual(truth.map(entryOf));
    const now = await history(human, "limit=1");
    expect(now.items[0].elicitation_id).toMatch(/^h_new_/);
  });
});
