/**
 * LangGraph's interrupt() through Tollgate: a real graph with a checkpointer interrupts in a node,
 * a human answers over HTTP against a local runtime, and the graph continues with the verdict.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { TollgateRunner } from "../sdk/index.js";
import { resumeInterrupts, runWithInterrupts, type InterruptibleGraph } from "../sdk/langgraph.js";
import { docExample } from "./support/doc-example.js";
import { human as humanOf } from "./support/approvals.js";
import { startTollgate, type Harness } from "./support/tollgate.js";

let t: Harness;
let human: string;
const { card, answer } = humanOf(
  () => t,
  () => human,
);
let graph: InterruptibleGraph & { checkpointer?: unknown };
beforeAll(async () => {
  t = await startTollgate();
  human = await t.token("human");
  ({ graph } = await docExample<{ graph: typeof graph }>("agents.md", "LangGraph"));
});
afterAll(async () => t?.stop());

const thread = (id: string) => ({ configurable: { thread_id: id } });
const runnerIn = (session: string): Promise<TollgateRunner> => t.runner({ sessions: [{ session_id: session }] });

it("the interrupt is a form; the human's answer over HTTP resumes the graph with it", { timeout: 90_000 }, async () => {
  const runner = await runnerIn("lg-accept");
  const done = runWithInterrupts(graph, { order: "A-1" }, thread("lg-accept-thread"), { runner, sessionId: "lg-accept" });
  const pending = await card("lg-accept");
  expect(pending.prompt).toBe("Refund order A-1?");
  expect(pending.fields).toEqual(["amount"]);
  expect(pending.elicitation_id).toMatch(/^langgraph:lg-accept-thread:/);
  expect((await answer("lg-accept", pending.elicitation_id, "accept", { content: { amount: 30 } })).status).toBe(200);
  expect(await done).toEqual({ order: "A-1", outcome: "refunded 30 EUR" });
});

it("a decline reaches the node as the verdict, with the human's reason", { timeout: 90_000 }, async () => {
  const runner = await runnerIn("lg-decline");
  const done = runWithInterrupts(graph, { order: "B-2" }, thread("lg-decline-thread"), { runner, sessionId: "lg-decline" });
  const pending = await card("lg-decline");
  expect((await answer("lg-decline", pending.elicitation_id, "decline", { message: "B-2 shipped already." })).status).toBe(200);
  expect(await done).toEqual({ order: "B-2", outcome: "kept: B-2 shipped already." });
});

it("a runner restarted on the same checkpointer joins the pending elicitation", { timeout: 120_000 }, async () => {
  const before = await runnerIn("lg-restart");
  const gone = runWithInterrupts(graph, { order: "C-3" }, thread("lg-restart-thread"), { runner: before, sessionId: "lg-restart" });
  const pending = await card("lg-restart");
  before.close();
  await expect(gone).rejects.toMatchObject({ code: "closed" });

  const after = await runnerIn("lg-restart");
  const done = resumeInterrupts(graph, thread("lg-restart-thread"), { runner: after, sessionId: "lg-restart" });
  expect((await card("lg-restart")).elicitation_id).toBe(pending.elicitation_id);
  expect((await answer("lg-restart", pending.elicitation_id, "accept", { content: { amount: 5 } })).status).toBe(200);
  expect(await done).toEqual({ order: "C-3", outcome: "refunded 5 EUR" });
});
