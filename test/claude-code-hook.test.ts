/**
 * `tollgate hook claude-code` as Claude Code runs it: a subprocess, the hook's documented JSON on
 * stdin, the decision on stdout, against a local runtime. It always exits 0 with a decision, a
 * deny whenever it cannot ask.
 */
import { readFile } from "node:fs/promises";
import { expect, it } from "vitest";
import { cli, cliRuntime, type CliRun } from "./support/cli.js";
import { human as humanOf } from "./support/approvals.js";

const local = cliRuntime({ as: "runner" });
const { card, answer } = humanOf(
  () => local.t,
  () => local.human,
);

/** The input shapes of Claude Code's hook reference. */
const preToolUse = (session: string, toolUseId: string, tool_name = "Bash", tool_input: object = { command: "npm test", description: "Run the tests" }) => ({
  session_id: session,
  transcript_path: `/home/user/.claude/projects/my-project/${session}.jsonl`,
  cwd: "/home/user/my-project",
  permission_mode: "default",
  hook_event_name: "PreToolUse",
  tool_name,
  tool_input,
  tool_use_id: toolUseId,
});
const permissionRequest = (session: string, tool_name: string, tool_input: object) => ({
  session_id: session,
  transcript_path: `/home/user/.claude/projects/my-project/${session}.jsonl`,
  cwd: "/home/user/my-project",
  permission_mode: "default",
  hook_event_name: "PermissionRequest",
  tool_name,
  tool_input,
  permission_suggestions: [{ type: "addRules", rules: [{ toolName: tool_name }], behavior: "allow", destination: "localSettings" }],
});

function hook(input: object, flags: string[] = [], extraEnv: Record<string, string> = {}) {
  return local.start(["hook", "claude-code", ...flags], { ...local.env, ...extraEnv }, JSON.stringify(input));
}

async function decision(run: CliRun) {
  expect(await run.exited).toBe(0);
  return JSON.parse(run.stdout);
}

it("PreToolUse: the card shows the Bash command; a human's accept allows", { timeout: 90_000 }, async () => {
  const run = hook(preToolUse("cc-allow", "toolu_01ALLOW"));
  const pending = await card("claude-code:cc-allow");
  expect(pending.elicitation_id).toBe("claude-code:pre:toolu_01ALLOW");
  expect(pending.prompt).toContain("npm test");
  expect((await answer("claude-code:cc-allow", pending.elicitation_id, "accept")).status).toBe(200);
  expect(await decision(run)).toEqual({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow" } });
  const session = await local.t.http(local.human, "GET", "/v1/sessions/claude-code:cc-allow");
  expect(session.body.title).toBe("Claude Code in /home/user/my-project");
});

it("PermissionRequest: the card shows the file and a diff; a decline denies with the human's reason", { timeout: 90_000 }, async () => {
  const edit = { file_path: "/home/user/my-project/src/app.ts", old_string: "const retries = 3;", new_string: "const retries = 0;" };
  const run = hook(permissionRequest("cc-deny", "Edit", edit));
  const pending = await card("claude-code:cc-deny");
  expect(pending.prompt).toContain("/home/user/my-project/src/app.ts");
  expect(pending.prompt).toContain("- const retries = 3;\n+ const retries = 0;");
  expect((await answer("claude-code:cc-deny", pending.elicitation_id, "decline", { message: "Retries stay on: flaky network." })).status).toBe(200);
  expect(await decision(run)).toEqual({
    hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "deny", message: "Retries stay on: flaky network." } },
  });
});

it("no verdict before --timeout: a deny, and the card is closed", { timeout: 90_000 }, async () => {
  const run = hook(preToolUse("cc-deadline", "toolu_01LATE", "WebFetch", { url: "https://example.com/pricing", prompt: "Summarise the prices" }), ["--timeout", "2"]);
  const pending = await card("claude-code:cc-deadline");
  expect(pending.prompt).toContain("https://example.com/pricing");
  const out = await decision(run);
  expect(out.hookSpecificOutput).toMatchObject({ hookEventName: "PreToolUse", permissionDecision: "deny" });
  expect(out.hookSpecificOutput.permissionDecisionReason).toMatch(/within 2 s/);
  const read = await local.t.http(local.human, "GET", `/v1/elicitations/${pending.elicitation_id}`);
  expect(read.body.status).toBe("resolved");
  expect(["cancel", "decline"]).toContain(read.body.verdict.action);
});

it("--on-timeout ask: PermissionRequest prints nothing, so Claude Code asks as usual", { timeout: 90_000 }, async () => {
  const run = hook(permissionRequest("cc-ask", "Bash", { command: "make deploy" }), ["--timeout", "2", "--on-timeout", "ask"]);
  await card("claude-code:cc-ask");
  expect(await run.exited).toBe(0);
  expect(run.stdout).toBe("");
});

it("a rerun after the hook's own deadline answers as the timeout did (--on-timeout ask: ask), not as a cancelled run", { timeout: 90_000 }, async () => {
  const input = preToolUse("cc-late-again", "toolu_01LATEAGAIN");
  const first = hook(input, ["--timeout", "2", "--on-timeout", "ask"]);
  const pending = await card("claude-code:cc-late-again");
  expect((await decision(first)).hookSpecificOutput.permissionDecision).toBe("ask");
  const read = await local.t.http(local.human, "GET", `/v1/elicitations/${pending.elicitation_id}`);
  expect(read.body.verdict).toMatchObject({ action: "cancel", reason: "cancelled" }); // the hook's own cancel at its deadline
  const again = await cli(["hook", "claude-code", "--timeout", "2", "--on-timeout", "ask"], local.env, JSON.stringify(input));
  expect(JSON.parse(again.stdout).hookSpecificOutput.permissionDecision).toBe("ask");
  // The run cancelled by someone else (another token) is still a deny.
  const other = preToolUse("cc-run-cancelled", "toolu_01RUNCANCEL");
  const waiting = hook(other, ["--on-timeout", "ask"]);
  await card("claude-code:cc-run-cancelled");
  expect((await local.t.http(await local.t.token("service"), "POST", "/v1/sessions/claude-code:cc-run-cancelled/cancel", {})).status).toBe(200);
  expect((await decision(waiting)).hookSpecificOutput).toMatchObject({ permissionDecision: "deny", permissionDecisionReason: expect.stringMatching(/run was cancelled/) });
});

it("the same tool_use_id again joins the same wait: one card, and a rerun after the verdict gets it at once", { timeout: 120_000 }, async () => {
  const input = preToolUse("cc-twice", "toolu_01TWICE");
  const first = hook(input);
  const pending = await card("claude-code:cc-twice");
  first.child.kill("SIGKILL"); // Claude Code gave up on the first run of the hook
  await first.exited;
  const second = hook(input);
  expect((await card("claude-code:cc-twice")).elicitation_id).toBe(pending.elicitation_id);
  expect((await answer("claude-code:cc-twice", pending.elicitation_id, "accept")).status).toBe(200);
  expect((await decision(second)).hookSpecificOutput.permissionDecision).toBe("allow");
  const third = await cli(["hook", "claude-code"], local.env, JSON.stringify(input));
  expect(JSON.parse(third.stdout).hookSpecificOutput.permissionDecision).toBe("allow");
  const session = await local.t.http(local.human, "GET", "/v1/sessions?ids=claude-code:cc-twice");
  expect(session.body.sessions[0].pending_elicitations_count).toBe(0);
});

it("PermissionRequest carries no tool_use_id: a later call with the same input is asked anew, never handed the earlier verdict", { timeout: 120_000 }, async () => {
  const push = permissionRequest("cc-again", "Bash", { command: "git push --force" });
  const first = hook(push);
  const once = await card("claude-code:cc-again");
  expect((await answer("claude-code:cc-again", once.elicitation_id, "accept")).status).toBe(200);
  expect((await decision(first)).hookSpecificOutput.decision).toEqual({ behavior: "allow" });

  const later = hook(push);
  const again = await card("claude-code:cc-again");
  expect(again.elicitation_id).not.toBe(once.elicitation_id);
  expect((await answer("claude-code:cc-again", again.elicitation_id, "decline", { message: "Not twice." })).status).toBe(200);
  expect((await decision(later)).hookSpecificOutput.decision).toEqual({ behavior: "deny", message: "Not twice." });
});

it("Tollgate down or a refused token: a deny that says so, exit 0", { timeout: 90_000 }, async () => {
  const down = await cli(["hook", "claude-code"], { ...local.env, TOLLGATE_URL: "http://127.0.0.1:1" }, JSON.stringify(preToolUse("cc-down", "toolu_01DOWN")));
  expect(down.code).toBe(0);
  const out = JSON.parse(down.stdout).hookSpecificOutput;
  expect(out).toMatchObject({ hookEventName: "PreToolUse", permissionDecision: "deny" });
  expect(out.permissionDecisionReason).toMatch(/cannot reach Tollgate at ws:\/\/127\.0\.0\.1:1/);

  const refused = await cli(["hook", "claude-code"], { ...local.env, TOLLGATE_TOKEN: "not-a-token" }, JSON.stringify(permissionRequest("cc-down", "Bash", { command: "ls" })));
  expect(refused.code).toBe(0);
  const decisionOut = JSON.parse(refused.stdout).hookSpecificOutput.decision;
  expect(decisionOut.behavior).toBe("deny");
  expect(decisionOut.message).toMatch(/unauthorized/);
});

it("input that is not a hook event blocks the call (exit 2, the one code Claude Code blocks on)", { timeout: 60_000 }, async () => {
  const out = await cli(["hook", "claude-code"], local.env, "{not json");
  expect(out.code).toBe(2);
  expect(out.stderr).toMatch(/not JSON/);
});

it("a sub-agent's call is asked in a child session of the Claude Code session", { timeout: 90_000 }, async () => {
  const input = { ...preToolUse("cc-tree", "toolu_01SUB", "Bash", { command: "git push" }), agent_id: "agent_7f3a", agent_type: "Explore" };
  const run = hook(input);
  const child = "claude-code:cc-tree:agent_7f3a";
  const pending = await card(child);
  expect(pending.prompt).toContain("Explore sub-agent");
  const parent = await local.t.http(local.human, "GET", "/v1/sessions/claude-code:cc-tree");
  expect(parent.body.descendant_pending_elicitations.map((e: { elicitation_id: string }) => e.elicitation_id)).toEqual([pending.elicitation_id]);
  const read = await local.t.http(local.human, "GET", `/v1/sessions/${child}`);
  expect(read.body.parent_session_id).toBe("claude-code:cc-tree");
  await answer(child, pending.elicitation_id, "accept");
  expect((await decision(run)).hookSpecificOutput.permissionDecision).toBe("allow");
});

it("the settings.json block of docs/claude-code.md runs as written", { timeout: 90_000 }, async () => {
  const page = await readFile(new URL("../docs/claude-code.md", import.meta.url), "utf8");
  const settings = JSON.parse(/```json\n([\s\S]*?)```/.exec(page)![1]);
  const [entry] = settings.hooks.PreToolUse;
  expect(new RegExp(`^(${entry.matcher})$`).test("Bash")).toBe(true);
  const { command, timeout } = entry.hooks[0];
  const [, ...args] = command.split(" ");
  const flagTimeout = Number(args[args.indexOf("--timeout") + 1]);
  expect(flagTimeout).toBeLessThan(timeout);
  const run = local.start(args, local.env, JSON.stringify(preToolUse("cc-docs", "toolu_01DOCS")));
  const pending = await card("claude-code:cc-docs");
  await answer("claude-code:cc-docs", pending.elicitation_id, "accept");
  expect((await decision(run)).hookSpecificOutput.permissionDecision).toBe("allow");
});
