/** `tollgate answer --message` and `tollgate history` as a subprocess against a started local runtime. */
import { beforeAll, describe, expect, it, vi } from "vitest";
import { EXIT } from "../cli/exit.js";
import { instant } from "../cli/history.js";
import { cli, cliRuntime } from "./support/cli.js";

vi.setConfig({ testTimeout: 60_000 }); // each case starts the CLI as a new process, some several

const run = cliRuntime();
beforeAll(async () => {
  const { t } = run;
  const runner = await t.token("runner");
  await t.http(runner, "PUT", "/v1/sessions/clh", { title: "codex:clh" });
  for (const id of ["clh_1", "clh_2", "clh_3"]) {
    const r = await t.http(runner, "POST", "/v1/sessions/clh/events", { type: "response.elicitation_request", elicitation_id: id, params: { message: `${id}?` } });
    expect(r.status).toBe(201);
  }
});

/** Every entry of the server's own listing. */
async function listed(query = "") {
  const items: any[] = [];
  for (let cursor: string | null = null; ; ) {
    const page: { items: any[]; next_cursor: string | null } = (
      await run.t.http(await run.t.token("human"), "GET", `/v1/history?limit=1${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`)
    ).body;
    items.push(...page.items);
    cursor = page.next_cursor;
    if (!cursor) return items;
  }
}

describe("answer --message", () => {
  it("sends the reason with the verdict, and a conflict tells the reason that stands", async () => {
    const out = await cli(["answer", "clh_1", "decline", "--message", "not on Fridays", "--json"], run.env);
    expect(out.code, out.stderr).toBe(EXIT.ok);
    expect((await run.t.http(await run.t.token("human"), "GET", "/v1/elicitations/clh_1")).body.verdict).toMatchObject({ action: "decline", message: "not on Fridays", resolved_by: "human-1" });
    const other = await cli(["answer", "clh_1", "decline", "--message", "never"], run.env);
    expect(other.code).toBe(EXIT.refused);
    expect(other.stderr).toMatch(/conflict: already resolved decline \(answered\) by human-1 at \S+: "not on Fridays"/);
    const tooLong = await cli(["answer", "clh_2", "accept", "--message", "x".repeat(2_001)], run.env);
    expect(tooLong.code).toBe(EXIT.refused);
    expect(tooLong.stderr).toMatch(/^tollgate: bad_request: /);
    expect((await run.t.http(await run.t.token("human"), "GET", "/v1/elicitations/clh_2")).body.status).toBe("pending");
    expect((await cli(["answer", "clh_2", "accept", "--message", "go"], run.env)).code).toBe(EXIT.ok);
    expect((await cli(["answer", "clh_3", "accept"], { ...run.env, TOLLGATE_TOKEN: await run.t.token("human", "human-2") })).code).toBe(EXIT.ok);
  });
});

describe("history", () => {
  it("--since 7d --jsonl writes the server's export, every page, one decision per line", async () => {
    const out = await cli(["history", "--since", "7d", "--jsonl", "--limit", "1"], run.env);
    expect(out.code, out.stderr).toBe(EXIT.ok);
    const lines = out.stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    expect(lines).toEqual(await listed());
    expect(lines.map((e) => e.elicitation_id)).toEqual(["clh_3", "clh_2", "clh_1"]);
    expect(lines[2].verdict).toMatchObject({ action: "decline", message: "not on Fridays", via: "token" });
  });

  it("prints one line per decision, filters as the API does, and --json gives the entries", async () => {
    const text = await cli(["history", "--since", "1h"], run.env);
    expect(text.code, text.stderr).toBe(EXIT.ok);
    const rows = text.stdout.trim().split("\n");
    expect(rows).toHaveLength(3);
    expect(rows[2]).toMatch(/decline clh_1 in clh by human-1 \(answered, token\)\s+clh_1\?\s+"not on Fridays"/);
    const mine = await cli(["history", "--resolved-by", "human-2", "--json"], run.env);
    expect(
      mine.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l)),
    ).toEqual(await listed("&resolved_by=human-2"));
    const declined = await cli(["history", "--action", "decline", "--session", "clh", "--json"], run.env);
    expect(
      declined.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).elicitation_id),
    ).toEqual(["clh_1"]);
    expect((await cli(["history", "--until", "7d"], run.env)).stdout).toBe("");
  });

  it("refuses a time it cannot read (exit 2) and a runner token (exit 1)", async () => {
    const bad = await cli(["history", "--since", "last week"], run.env);
    expect(bad.code).toBe(EXIT.usage);
    expect(bad.stderr).toMatch(/--since takes a duration/);
    const runner = await cli(["history"], { ...run.env, TOLLGATE_TOKEN: await run.t.token("runner") });
    expect(runner.code).toBe(EXIT.refused);
    expect(runner.stderr).toMatch(/forbidden/);
  });

  it("reads durations back from now and ISO times as instants", () => {
    const now = Date.parse("2026-12-01T10:00:00.000Z");
    expect(instant("7d", "--since", now)).toBe("2026-11-24T10:00:00.000Z");
    expect(instant("90m", "--since", now)).toBe("2026-12-01T08:30:00.000Z");
    expect(instant("2026-12-01T12:00:00+02:00", "--since", now)).toBe("2026-12-01T10:00:00.000Z");
  });
});
