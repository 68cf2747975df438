/**
 * The OpenAI Agents SDK's approvals through Tollgate: real agent runs whose model (the SDK's own
 * ScriptedModel, offline) calls a tool that needs approval, answered by a human over HTTP against
 * a local runtime.
 */
import { Agent, setTracingDisabled, tool } from "@openai/agents";
import { assistantMessage, functionCall, ScriptedModel } from "@openai/agents/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import * as z from "zod";
import type { TollgateRunner } from "../sdk/index.js";
import { resumeWithApprovals, runWithApprovals } from "../sdk/openai-agents.js";
import { docExample } from "./support/doc-example.js";
import { human as humanOf } from "./support/approvals.js";
import { eventually, startTollgate, type Harness } from "./support/tollgate.js";

let t: Harness;
let human: string;
const { card, answer } = humanOf(
  () => t,
  () => human,
);
beforeAll(async () => {
  setTracingDisabled(true);
  t = await startTollgate();
  human = await t.token("human");
});
afterAll(async () => t?.stop());

/** An agent whose model asks for a refund, then says what came of it; `refunds` records what the tool did. */
function support(callId: string) {
  const refunds: string[] = [];
  const refund = tool({
    name: "refund",
    description: "Refund an order",
    parameters: z.object({ order: z.string(), amount: z.number() }),
    needsApproval: true,
    execute: async ({ order, amount }) => (refunds.push(order), `refunded ${amount} EUR on ${order}`),
  });
  const model = new ScriptedModel([[functionCall("refund", { order: "A-1", amount: 30 }, { callId })], [assistantMessage("Done.")]]);
  return { agent: new Agent({ name: "Support", instructions: "Refund orders when asked.", model, tools: [refund] }), model, refunds };
}

/** What the model was given on its last call: the tool's result or the rejection text. */
const lastInput = (model: ScriptedModel) => JSON.stringify(model.lastCall?.request.input);

async function runnerIn(session: string): Promise<TollgateRunner> {
  return t.runner({ sessions: [{ session_id: session }] });
}

it("accept: the tool runs and the model sees its result", { timeout: 90_000 }, async () => {
  const { agent, model, refunds } = support("call_accept");
  const runner = await runnerIn("oa-accept");
  const done = runWithApprovals(agent, "Refund order A-1", { runner, sessionId: "oa-accept" });
  const pending = await card("oa-accept");
  expect(pending.elicitation_id).toBe("openai-agents:oa-accept:call_accept");
  expect(pending.prompt).toBe('Support wants to call refund with {"order":"A-1","amount":30}');
  expect((await answer("oa-accept", pending.elicitation_id, "accept")).status).toBe(200);
  expect((await done).finalOutput).toBe("Done.");
  expect(refunds).toEqual(["A-1"]);
  expect(lastInput(model)).toContain("refunded 30 EUR on A-1");
  model.assertComplete();
});

it("decline: the tool does not run and the model sees the human's reason", { timeout: 90_000 }, async () => {
  const { agent, model, refunds } = support("call_decline");
  const runner = await runnerIn("oa-decline");
  const done = runWithApprovals(agent, "Refund order A-1", { runner, sessionId: "oa-decline" });
  const pending = await card("oa-decline");
  expect((await answer("oa-decline", pending.elicitation_id, "decline", { message: "Order A-1 was already refunded." })).status).toBe(200);
  expect((await done).finalOutput).toBe("Done.");
  expect(refunds).toEqual([]);
  expect(lastInput(model)).toContain("Order A-1 was already refunded.");
});

it("a runner restarted from the serialised RunState joins the same elicitation", { timeout: 120_000 }, async () => {
  const first = support("call_restart");
  const before = await runnerIn("oa-restart");
  let saved: string | undefined;
  const gone = runWithApprovals(first.agent, "Refund order A-1", { runner: before, sessionId: "oa-restart", onState: (s) => void (saved = s) });
  const pending = await card("oa-restart");
  before.close(); // the process that ran the agent is gone
  await expect(gone).rejects.toMatchObject({ code: "closed" });
  expect(saved).toBeDefined();

  // A new process: a new agent (its model goes on from the tool's answer), a new runner.
  const { agent, refunds } = support("call_restart");
  agent.model = new ScriptedModel([[assistantMessage("Refunded.")]]);
  const after = await runnerIn("oa-restart");
  const done = resumeWithApprovals(agent, saved!, { runner: after, sessionId: "oa-restart" });
  expect((await card("oa-restart")).elicitation_id).toBe(pending.elicitation_id);
  await eventually(async () => {
    const read = await t.http(human, "GET", `/v1/elicitations/${pending.elicitation_id}`);
    expect(read.body.status).toBe("pending");
  });
  expect((await answer("oa-restart", pending.elicitation_id, "accept")).status).toBe(200);
  expect((await done).finalOutput).toBe("Refunded.");
  expect(refunds).toEqual(["A-1"]);
  expect(first.refunds).toEqual([]);
});

it("the example of docs/agents.md runs as written", { timeout: 90_000 }, async () => {
  const example = await docExample<{ agent: Agent; support: (r: TollgateRunner, s: string, q: string) => Promise<unknown> }>("agents.md", "OpenAI Agents SDK");
  example.agent.model = new ScriptedModel([[functionCall("refund", { order: "B-7", amount: 12 }, { callId: "call_docs" })], [assistantMessage("Refunded B-7.")]]);
  const runner = await runnerIn("oa-docs");
  const done = example.support(runner, "oa-docs", "Refund order B-7");
  const pending = await card("oa-docs");
  expect(pending.prompt).toContain('"order":"B-7"');
  await answer("oa-docs", pending.elicitation_id, "accept");
  expect(await done).toBe("Refunded B-7.");
});
