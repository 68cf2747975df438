/**
 * The Claude Agent SDK's canUseTool through Tollgate: the adapter of the docs' example called as
 * the SDK calls it (the SDK itself needs the Claude Code binary and a key to run), answered by a
 * human over HTTP against a local runtime. `tsc` checks it against the SDK's own types.
 */
import type { CanUseTool, Options } from "@anthropic-ai/claude-agent-sdk";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { TollgateRunner } from "../sdk/index.js";
import { docExample } from "./support/doc-example.js";
import { human as humanOf } from "./support/approvals.js";
import { eventually, startTollgate, type Harness } from "./support/tollgate.js";

let t: Harness;
let human: string;
const { card, answer } = humanOf(
  () => t,
  () => human,
);
let optionsFor: (runner: TollgateRunner, sessionId: string) => Options;
beforeAll(async () => {
  t = await startTollgate();
  human = await t.token("human");
  ({ optionsFor } = await docExample<{ optionsFor: typeof optionsFor }>("agents.md", "Claude Agent SDK"));
});
afterAll(async () => t?.stop());

async function canUseTool(session: string): Promise<CanUseTool> {
  const runner = await t.runner({ sessions: [{ session_id: session }] });
  return optionsFor(runner, session).canUseTool!;
}

const bash = { command: "npm test -- --update-snapshots", description: "Update the snapshots" };

it("allow: the human's accept returns the input to run", { timeout: 90_000 }, async () => {
  const decide = await canUseTool("cas-allow");
  const result = decide("Bash", bash, { signal: new AbortController().signal, toolUseID: "toolu_01CAS_ALLOW", requestId: "req_allow" });
  const pending = await card("cas-allow");
  expect(pending.elicitation_id).toBe("claude-agent-sdk:cas-allow:toolu_01CAS_ALLOW");
  expect(pending.prompt).toContain("npm test -- --update-snapshots");
  expect((await answer("cas-allow", pending.elicitation_id, "accept")).status).toBe(200);
  expect(await result).toEqual({ behavior: "allow", updatedInput: bash, toolUseID: "toolu_01CAS_ALLOW" });
});

it("deny: the human's decline returns their reason", { timeout: 90_000 }, async () => {
  const decide = await canUseTool("cas-deny");
  const result = decide(
    "Write",
    { file_path: "/repo/.env", content: "KEY=1\n" },
    { signal: new AbortController().signal, toolUseID: "toolu_01CAS_DENY", requestId: "req_deny", title: "Claude wants to write .env" },
  );
  const pending = await card("cas-deny");
  expect(pending.prompt).toMatch(/^Claude wants to write \.env: Write \/repo\/\.env/);
  expect((await answer("cas-deny", pending.elicitation_id, "decline", { message: "No secrets in the repository." })).status).toBe(200);
  expect(await result).toEqual({ behavior: "deny", message: "No secrets in the repository.", toolUseID: "toolu_01CAS_DENY" });
});

it("the SDK aborting through signal cancels the elicitation and denies", { timeout: 90_000 }, async () => {
  const decide = await canUseTool("cas-abort");
  const abort = new AbortController();
  const result = decide("Bash", bash, { signal: abort.signal, toolUseID: "toolu_01CAS_ABORT", requestId: "req_abort" });
  const pending = await card("cas-abort");
  abort.abort();
  expect(await result).toMatchObject({ behavior: "deny", message: expect.stringMatching(/aborted/), toolUseID: "toolu_01CAS_ABORT" });
  await eventually(async () => {
    const read = await t.http(human, "GET", `/v1/elicitations/${pending.elicitation_id}`);
    expect(read.body).toMatchObject({ status: "resolved", verdict: { action: "cancel", reason: "cancelled" } });
  }, 30_000);
});

it("a sub-agent's call is asked in a child session", { timeout: 90_000 }, async () => {
  const decide = await canUseTool("cas-tree");
  const result = decide("Bash", bash, { signal: new AbortController().signal, toolUseID: "toolu_01CAS_SUB", requestId: "req_sub", agentID: "agent_42" });
  const pending = await card("cas-tree:agent_42");
  const child = await t.http(human, "GET", "/v1/sessions/cas-tree:agent_42");
  expect(child.body.parent_session_id).toBe("cas-tree");
  expect((await answer("cas-tree:agent_42", pending.elicitation_id, "accept")).status).toBe(200);
  expect(await result).toMatchObject({ behavior: "allow" });
});
