/**
 * The `tollgate` CLI as a user runs it, a subprocess against a started local runtime: tokens that
 * work, pending sessions, answers, help on every command, usage errors and an unreachable server as
 * one line with their exit codes (README "CLI").
 */
import { execFile } from "node:child_process";
import { createServer } from "node:net";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { EXIT } from "../cli/exit.js";
import { cli, cliEnv, startCli } from "./support/cli.js";
import { startTollgate, type Harness } from "./support/tollgate.js";

vi.setConfig({ testTimeout: 60_000 }); // each case starts the CLI as a new process, some several

let t: Harness;
let env: Record<string, string>;
beforeAll(async () => {
  t = await startTollgate();
  env = await cliEnv(t);
});
afterAll(() => t?.stop());

/** One line on stderr, no stack trace. */
const oneLine = (stderr: string) => {
  expect(stderr.trim().split("\n"), stderr).toHaveLength(1);
  expect(stderr).not.toMatch(/\n\s+at /);
};

async function raise(session: string, id: string, extra: Record<string, unknown> = {}) {
  const runner = await t.token("runner");
  await t.http(runner, "PUT", `/v1/sessions/${session}`, { title: `codex:${session}` });
  const r = await t.http(runner, "POST", `/v1/sessions/${session}/events`, { type: "response.elicitation_request", elicitation_id: id, params: { message: `${id}?`, ...extra } });
  expect(r.status).toBe(201);
}

describe("token", () => {
  it("mints a token the API accepts, with the claims asked for", async () => {
    const minted = await cli(["token", "--role", "human", "--tenant", "acme", "--sub", "cli-human", "--ttl", "60"], env);
    expect(minted.code).toBe(EXIT.ok);
    const token = minted.stdout.trim();
    expect((await t.http(token, "GET", "/v1/sessions")).status).toBe(200);
    const [, payload] = token.split(".");
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString());
    expect(claims).toMatchObject({ sub: "cli-human", tenant: "acme", role: "human" });
    expect(claims.exp - claims.iat).toBe(60);
  });

  it("a runner token from it may not read sessions (the role is in the token), and --json tells the claims", async () => {
    const minted = await cli(["token", "--role", "runner", "--tenant", "acme", "--json"], env);
    const out = JSON.parse(minted.stdout);
    expect(out).toMatchObject({ role: "runner", tenant: "acme", sub: "dev-runner" });
    expect((await t.http(out.token, "GET", "/v1/sessions")).status).toBe(403);
  });

  it("without the runtime's secret its tokens are refused", async () => {
    const minted = await cli(["token", "--role", "human", "--tenant", "acme"], { ...env, TOLLGATE_JWT_SECRET: "" });
    expect((await t.http(minted.stdout.trim(), "GET", "/v1/sessions")).status).toBe(401);
  });
});

describe("pending and answer", () => {
  it("pending --json lists the sessions awaiting a human, with their badges and prompts", async () => {
    await raise("cli_p1", "cli_e1");
    await raise("cli_p1", "cli_e2");
    const out = await cli(["pending", "--json"], env);
    expect(out.code, out.stderr).toBe(EXIT.ok);
    const { sessions } = JSON.parse(out.stdout);
    const mine = sessions.find((s: any) => s.session_id === "cli_p1");
    expect(mine).toMatchObject({ pending_elicitations_count: 2, awaiting_approval: true, title: "codex:cli_p1" });
    expect(mine.pending_elicitations.map((e: any) => e.elicitation_id)).toEqual(["cli_e1", "cli_e2"]);
    const text = await cli(["pending"], env);
    expect(text.stdout).toMatch(/cli_p1 ● 2/);
    expect(text.stdout).toMatch(/cli_e1\s+cli_e1\?/);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the escape character is what it looks for
    expect(text.stdout).not.toMatch(/\x1b\[/); // no colour off a terminal
  });

  it("answer finds the session itself, gives the verdict with its content; a different second verdict is a conflict (exit 1)", async () => {
    await raise("cli_a1", "cli_a1e", { requestedSchema: { type: "object", properties: { branch: { type: "string" } } } });
    const out = await cli(["answer", "cli_a1e", "accept", "--content", '{"branch":"main"}', "--json"], env);
    expect(out.code, out.stderr).toBe(EXIT.ok);
    expect(JSON.parse(out.stdout)).toEqual({
      elicitation_id: "cli_a1e",
      action: "accept",
      reason: "answered",
      resolved_by: "human-1",
      resolved_at: expect.any(String),
      status: "resolved",
      session_id: "cli_a1",
    });
    const read = await t.http(await t.token("human"), "GET", "/v1/elicitations/cli_a1e");
    expect(read.body.verdict).toMatchObject({ action: "accept", content: { branch: "main" }, reason: "answered", resolved_by: "human-1" });
    const again = await cli(["answer", "cli_a1e", "decline", "--session", "cli_a1"], env);
    expect(again.code).toBe(EXIT.refused);
    expect(again.stderr).toMatch(/conflict: already resolved accept \(answered\) by human-1/);
    oneLine(again.stderr);
  });

  it("link prints an approval link that answers that one prompt without a token; a resolved one is a conflict (exit 1)", async () => {
    await raise("cli_l1", "cli_l1e");
    const out = await cli(["link", "cli_l1e", "--for", "pat"], env);
    expect(out.code, out.stderr).toBe(EXIT.ok);
    const url = new URL(out.stdout.trim());
    expect(url.searchParams.get("elicitation")).toBe("cli_l1e");
    const link = new URLSearchParams(url.hash.slice(1)).get("link");
    expect((await t.http(link!, "POST", "/v1/link/verdict", { action: "decline" })).status).toBe(200);
    const read = await t.http(await t.token("human"), "GET", "/v1/elicitations/cli_l1e");
    expect(read.body.verdict).toMatchObject({ action: "decline", resolved_by: "pat" });
    const again = await cli(["link", "cli_l1e"], env);
    expect(again.code).toBe(EXIT.refused);
    expect(again.stderr).toMatch(/conflict/);
    oneLine(again.stderr);
  });

  it("answer of an unknown elicitation says not_found (exit 1)", async () => {
    const out = await cli(["answer", "cli_nothing", "decline"], env);
    expect(out.code).toBe(EXIT.refused);
    expect(out.stderr).toMatch(/not_found/);
    oneLine(out.stderr);
  });

  it("pending --watch prints what is raised and resolved as it happens, over the WebSocket", async () => {
    const watch = startCli(["pending", "--watch", "--json"], env);
    try {
      await watch.line(/^\{"sessions":/);
      await raise("cli_w1", "cli_w1e");
      const raised = JSON.parse(await watch.line(/"response\.elicitation_request".*cli_w1e/));
      expect(raised).toMatchObject({ session_id: "cli_w1", params: { message: "cli_w1e?" } });
      await cli(["answer", "cli_w1e", "decline"], env);
      expect(JSON.parse(await watch.line(/"response\.elicitation_resolved".*cli_w1e/))).toMatchObject({ action: "decline", reason: "answered" });
      expect(JSON.parse(await watch.line(/"session\.badge".*cli_w1".*"pending_elicitations_count":0/))).toMatchObject({ type: "session.badge" });
    } finally {
      watch.child.kill("SIGINT");
      await watch.exited;
    }
  });

  it("pending --watch as text says who resolved each prompt and the words they gave with it", async () => {
    const watch = startCli(["pending", "--watch"], env);
    try {
      await watch.line(/^(nothing awaits a human|\S+ ●)/);
      await raise("cli_w2", "cli_w2e");
      await watch.line(/^\+ cli_w2 cli_w2e {2}cli_w2e\?$/);
      await cli(["answer", "cli_w2e", "decline", "--message", "not on Fridays"], env);
      expect(await watch.line(/cli_w2e {2}decline/)).toMatch(/^✓ cli_w2 cli_w2e {2}decline \(answered, by \S+\) {2}"not on Fridays"$/);
    } finally {
      watch.child.kill("SIGINT");
      await watch.exited;
    }
  });
});

describe("usage, help and reachability", () => {
  it("--help works on every command", async () => {
    const commands = ["", "start", "token", "pending", "answer", "ask", "demo", "openapi"];
    const outs = await Promise.all(commands.map((command) => cli([...(command ? [command] : []), "--help"])));
    commands.forEach((command, i) => {
      expect(outs[i].code, command).toBe(EXIT.ok);
      expect(outs[i].stdout).toMatch(new RegExp(`^Usage: tollgate ${command}`));
    });
  });

  it.each([
    [["pending", "--no-such-flag"], /unknown option '--no-such-flag'/],
    [["token", "--role", "admin"], /'admin' is invalid/],
    [["token"], /--role is required \(or --issuer to fetch a machine token\)/],
    [["token", "--issuer", "http://127.0.0.1:9"], /--issuer needs --client-id and --client-secret/],
    [["answer", "cli_e1", "maybe"], /'maybe' is invalid/],
    [["answer", "cli_e1", "accept", "--content", "{oops"], /--content is not valid JSON/],
    [["ask", "Deploy?"], /required option '--session <id>'/],
    [["ask", "Deploy?", "--session", "s", "--timeout", "0"], /--timeout takes a whole number from 1 to 604800/],
    [["pending", "--url", "not a url"], /--url is not an http/],
    [["no-such-command"], /unknown command 'no-such-command'/],
  ])("%j is a usage error: one line, exit 2", async (args, message) => {
    const out = await cli(args, env);
    expect(out.code, out.stderr).toBe(EXIT.usage);
    expect(out.stderr).toMatch(message);
    oneLine(out.stderr);
  });

  it("no token is a usage error that says how to get one", async () => {
    const out = await cli(["pending"], { ...env, TOLLGATE_TOKEN: "" });
    expect(out.code).toBe(EXIT.usage);
    expect(out.stderr).toMatch(/no token: pass --token or set TOLLGATE_TOKEN/);
  });

  it("an unreachable server is one line and exit 6, for HTTP and WebSocket commands alike", async () => {
    const port = await closedPort();
    for (const args of [["pending"], ["answer", "x", "accept"], ["ask", "Deploy?", "--session", "s"], ["pending", "--watch"], ["demo"]]) {
      const out = await cli([...args, "--url", `http://127.0.0.1:${port}`], env);
      expect(out.code, `${args}: ${out.stderr}`).toBe(EXIT.unreachable);
      expect(out.stderr).toMatch(new RegExp(`cannot reach Tollgate at (http|ws)://127\\.0\\.0\\.1:${port}.*ECONNREFUSED`));
      oneLine(out.stderr);
    }
  });

  it("a --url that is not the API's root is one line, exit 1, naming the gateway's 404", async () => {
    const out = await cli(["pending", "--url", `${t.runtime.httpUrl}/prod`], env);
    expect(out.code).toBe(EXIT.refused);
    expect(out.stderr).toContain(`http_404: Not Found: is ${t.runtime.httpUrl}/prod Tollgate's HTTP API?`);
    oneLine(out.stderr);
  });

  it("colours only on a terminal, and never with NO_COLOR", async () => {
    await raise("cli_tty", "cli_tty_e");
    // `script` gives the command a pseudo-terminal, as an interactive shell would.
    const onTerminal = (noColor: string | undefined) =>
      new Promise<string>((resolve, reject) =>
        execFile("script", ["-qec", `${process.execPath} bin/tollgate.js pending`, "/dev/null"], { env: { ...process.env, ...env, NO_COLOR: noColor } }, (error, stdout) =>
          error ? reject(error) : resolve(stdout),
        ),
      );
    const coloured = await onTerminal(undefined);
    expect(coloured).toContain("cli_tty");
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the escape character is what it looks for
    expect(coloured).toMatch(/\x1b\[\d+m/);
    const plain = await onTerminal("1");
    expect(plain).toContain("cli_tty");
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the escape character is what it looks for
    expect(plain).not.toMatch(/\x1b\[\d+m/);
  });

  it("openapi prints docs/openapi.json", async () => {
    const out = await cli(["openapi"]);
    expect(out.stdout).toBe(readFileSync(new URL("../docs/openapi.json", import.meta.url), "utf8"));
  });
});

/** A port nothing listens on: bound, then released. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
