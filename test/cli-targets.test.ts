/**
 * `tollgate targets add|list|rm|rotate` as a subprocess against a local runtime: the secret printed
 * once is the one deliveries are signed with (checked with the `standardwebhooks` library, at a
 * loopback receiver), a rotation replaces it, a list shows what the API holds, bad flags exit 2 and
 * change nothing, and the server's refusals exit 1 with its code.
 */
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { EXIT } from "../cli/exit.js";
import { cli, cliRuntime } from "./support/cli.js";
import { startReceiver, type Receiver } from "./support/receiver.js";
import { eventually } from "./support/tollgate.js";

vi.setConfig({ testTimeout: 90_000 }); // each case starts the CLI as a new process, most several

const run = cliRuntime({ as: "service", notifyRetryMs: [200, 200], notifyTimeoutMs: 1_500 });
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver?.close());

const targets = (...args: string[]) => cli(["targets", ...args], run.env);
const api = async (method: string, path: string, body?: unknown) => run.t.http(await run.t.token("service"), method, path, body);
const secretIn = (stdout: string) => /^signing secret: (whsec_\S+)$/m.exec(stdout)?.[1];

async function raise(session: string, id: string) {
  const runner = await run.t.token("runner");
  await run.t.http(runner, "PUT", `/v1/sessions/${session}`, {});
  const r = await run.t.http(runner, "POST", `/v1/sessions/${session}/events`, { type: "response.elicitation_request", elicitation_id: id, params: { message: `${id}?` } });
  expect(r.status).toBe(201);
}

/** The nth delivery at a path, once it has come. */
const delivery = (path: string, n: number) =>
  eventually(() => {
    expect(receiver.at(path).length).toBeGreaterThan(n);
    return receiver.at(path)[n];
  }, 20_000);

describe("add and rotate", () => {
  it("add prints the webhook's secret once, and deliveries are signed with it; rotate prints the one that replaces it", async () => {
    const added = await targets("add", "ops", "--kind", "webhook", "--target-url", receiver.url("/ops"), "--sessions", "conv_cli");
    expect(added.code, added.stderr).toBe(EXIT.ok);
    expect(added.stdout).toMatch(/^created webhook target ops: http:\/\/127\.0\.0\.1:\d+\/ops$/m);
    expect(added.stderr).toMatch(/shown only this once/);
    const secret = secretIn(added.stdout)!;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect((await api("GET", "/v1/notification-targets/ops")).body.secret).toBeUndefined();

    await raise("conv_cli", "el_cli_1");
    const requested = await delivery("/ops", 0);
    expect(new Webhook(secret).verify(requested.body, requested.headers)).toMatchObject({ type: "elicitation.requested", data: { elicitation_id: "el_cli_1" } });

    const rotated = await targets("rotate", "ops");
    expect(rotated.code, rotated.stderr).toBe(EXIT.ok);
    expect(rotated.stdout).toMatch(/^rotated the signing secret of ops$/m);
    const next = secretIn(rotated.stdout)!;
    expect(next).toMatch(/^whsec_/);
    expect(next).not.toBe(secret);
    await raise("conv_cli", "el_cli_2");
    const after = await delivery("/ops", 1);
    expect(new Webhook(next).verify(after.body, after.headers)).toMatchObject({ data: { elicitation_id: "el_cli_2" } });
    expect(() => new Webhook(secret).verify(after.body, after.headers)).toThrow();

    // The same id again is a change: no secret, and the target keeps signing with the rotated one.
    const changed = await targets("add", "ops", "--kind", "webhook", "--target-url", receiver.url("/ops"), "--sessions", "conv_cli,conv_other");
    expect(changed.code, changed.stderr).toBe(EXIT.ok);
    expect(changed.stdout).toMatch(/^changed webhook target ops/);
    expect(`${changed.stdout}${changed.stderr}`).not.toMatch(/whsec_/);
    expect((await api("GET", "/v1/notification-targets/ops")).body.sessions).toEqual(["conv_cli", "conv_other"]);
  });

  it("--json prints the API's reply, the secret in it once", async () => {
    const added = await targets("add", "json-hook", "--kind", "webhook", "--target-url", receiver.url("/json"), "--events", "elicitation.resolved", "--json");
    expect(added.code, added.stderr).toBe(EXIT.ok);
    const body = JSON.parse(added.stdout);
    expect(body).toMatchObject({ target_id: "json-hook", kind: "webhook", events: ["elicitation.resolved"], secret: expect.stringMatching(/^whsec_/) });
    const { secret, ...shown } = body;
    expect((await api("GET", "/v1/notification-targets/json-hook")).body).toEqual(shown);
    const rotated = JSON.parse((await targets("rotate", "json-hook", "--json")).stdout);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(secret);
  });
});

describe("list and rm", () => {
  it("list shows each target's settings and state; --json one target per line, as the API lists them; rm deletes", async () => {
    const added = await targets(
      "add",
      "chat",
      "--kind",
      "slack",
      "--target-url",
      receiver.url("/chat"),
      "--events",
      "elicitation.requested, elicitation.resolved",
      "--sessions",
      "conv_a,conv_b",
      "--remind-after",
      "600",
      "--remind-times",
      "2",
    );
    expect(added.code, added.stderr).toBe(EXIT.ok);
    expect(added.stdout).toMatch(/^created slack target chat/);
    expect(added.stdout).not.toMatch(/secret/);

    const listed = await targets("list");
    expect(listed.code, listed.stderr).toBe(EXIT.ok);
    const lines = listed.stdout.trimEnd().split("\n");
    expect(lines[0].split(/\s+/)).toEqual(["ID", "KIND", "EVENTS", "SESSIONS", "REMIND", "URL", "STATE"]);
    const chat = lines.find((l) => l.startsWith("chat "))!.split(/\s+/);
    expect(chat).toEqual(["chat", "slack", "elicitation.requested,elicitation.resolved", "conv_a,conv_b", "2x600s", receiver.url("/chat"), "enabled"]);
    const columns = lines[0].indexOf("URL");
    for (const line of lines.slice(1)) expect(line.indexOf("http://")).toBe(columns);

    const json = await targets("list", "--json");
    const all = (await api("GET", "/v1/notification-targets")).body.targets;
    expect(
      json.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l)),
    ).toEqual(all);
    expect(all.map((target: { target_id: string }) => target.target_id)).toContain("chat");

    const removed = await targets("rm", "chat");
    expect(removed.code, removed.stderr).toBe(EXIT.ok);
    expect(removed.stdout).toBe("deleted target chat\n");
    expect((await api("GET", "/v1/notification-targets/chat")).status).toBe(404);
    const again = await targets("rm", "chat");
    expect(again.code).toBe(EXIT.refused);
    expect(again.stderr).toBe("tollgate: not_found: notification target not found\n");
  });

  it("a target that failed through every attempt lists as disabled, with the reason", async () => {
    receiver.plan("/down", [500]);
    expect((await targets("add", "down", "--kind", "webhook", "--target-url", receiver.url("/down"), "--sessions", "conv_down")).code).toBe(EXIT.ok);
    await raise("conv_down", "el_down");
    const reason = await eventually(async () => {
      const read = await api("GET", "/v1/notification-targets/down");
      expect(read.body.disabled_reason).toEqual(expect.any(String));
      return read.body.disabled_reason as string;
    }, 20_000);
    const row = (await targets("list")).stdout.split("\n").find((line) => line.startsWith("down "));
    expect(row).toContain(` ${receiver.url("/down")} `);
    expect(row?.endsWith(`  disabled: ${reason}`)).toBe(true);
  });

  it("an empty tenant lists nothing", async () => {
    const other = await cli(["targets", "list"], { ...run.env, TOLLGATE_TOKEN: await run.t.token("service", "svc", "empty-tenant") });
    expect(other.code, other.stderr).toBe(EXIT.ok);
    expect(other.stdout).toBe("no notification targets\n");
  });
});

describe("refusals", () => {
  it("bad flags exit 2 with one line naming the flag, and create nothing", async () => {
    const url = receiver.url("/bad");
    const cases: [string[], RegExp][] = [
      [["add", "bad", "--kind", "email", "--target-url", url], /--kind.*email.*webhook, slack/],
      [["add", "bad", "--kind", "webhook"], /--target-url/],
      [["add", "bad", "--target-url", url], /--kind/],
      [["add", "bad", "--kind", "webhook", "--target-url", "not a url"], /^tollgate: --target-url is not an http\(s\) URL/],
      [["add", "bad", "--kind", "webhook", "--target-url", "ftp://127.0.0.1/x"], /^tollgate: --target-url is not an http\(s\) URL/],
      [["add", "bad", "--kind", "webhook", "--target-url", `https://example.com/${"x".repeat(2_100)}`], /^tollgate: --target-url: must be at most 2048 characters/],
      [["add", "bad", "--kind", "webhook", "--target-url", url, "--events", "elicitation.requested,elicitation.opened"], /^tollgate: --events "elicitation.opened": /],
      [["add", "bad", "--kind", "webhook", "--target-url", url, "--sessions", "conv a"], /^tollgate: --sessions "conv a": must be 1 to 128 characters/],
      [["add", "bad", "--kind", "webhook", "--target-url", url, "--remind-after", "5"], /^tollgate: --remind-after takes a whole number from 60 to 604800/],
      [["add", "bad", "--kind", "webhook", "--target-url", url, "--remind-after", "1h"], /^tollgate: --remind-after takes a whole number/],
      [["add", "bad", "--kind", "webhook", "--target-url", url, "--remind-after", "60", "--remind-times", "25"], /^tollgate: --remind-times takes a whole number from 1 to 24/],
      [["add", "bad", "--kind", "webhook", "--target-url", url, "--remind-times", "2"], /^tollgate: --remind-times: needs --remind-after$/m],
      [["add", "bad id", "--kind", "webhook", "--target-url", url], /^tollgate: the target id must be 1 to 128 characters/],
      [["rm", "x".repeat(129)], /^tollgate: the target id must be/],
      [["rotate"], /missing required argument 'id'/],
      [["add", "bad", "--kind", "webhook", "--target-url", url], /^tollgate: no token/],
    ];
    const runs = await Promise.all(cases.map(([args], i) => cli(["targets", ...args], i === cases.length - 1 ? { ...run.env, TOLLGATE_TOKEN: "" } : run.env)));
    runs.forEach((out, i) => {
      expect(out.code, `${cases[i][0].join(" ")}: ${out.stderr}`).toBe(EXIT.usage);
      expect(out.stderr.trimEnd().split("\n")).toHaveLength(1);
      expect(out.stderr).toMatch(cases[i][1]);
      expect(out.stdout).toBe("");
    });
    expect((await api("GET", "/v1/notification-targets/bad")).status).toBe(404);
  });

  it("the server's refusals exit 1 with its code, and an unreachable server exits 6", async () => {
    const url = receiver.url("/refused");
    const human = await cli(["targets", "list"], { ...run.env, TOLLGATE_TOKEN: run.human });
    expect(human.code).toBe(EXIT.refused);
    expect(human.stderr).toMatch(/^tollgate: forbidden: /);
    const privateAddress = await targets("add", "private", "--kind", "webhook", "--target-url", "http://10.0.0.7/hook");
    expect(privateAddress.code).toBe(EXIT.refused);
    expect(privateAddress.stderr).toMatch(/^tollgate: bad_request: url: /);
    expect((await targets("add", "kinds", "--kind", "slack", "--target-url", url)).code).toBe(EXIT.ok);
    const slackSecret = await targets("rotate", "kinds");
    expect(slackSecret.code).toBe(EXIT.refused);
    expect(slackSecret.stderr).toBe("tollgate: conflict: only a webhook target has a secret\n");
    const otherKind = await targets("add", "kinds", "--kind", "webhook", "--target-url", url);
    expect(otherKind.code).toBe(EXIT.refused);
    expect(otherKind.stderr).toMatch(/^tollgate: conflict: /);
    expect((await api("GET", "/v1/notification-targets/kinds")).body.kind).toBe("slack");
    const gone = await cli(["targets", "list", "--url", "http://127.0.0.1:1"], run.env);
    expect(gone.code).toBe(EXIT.unreachable);
    expect(gone.stderr).toMatch(/^tollgate: cannot reach Tollgate at http:\/\/127\.0\.0\.1:1: /);
  });
});
