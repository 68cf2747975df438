/**
 * The OpenAI Agents SDK's tool approvals answered by a human in Tollgate: every
 * `RunToolApprovalItem` of a run's interruptions becomes an elicitation whose id comes from the
 * tool call's id, so a runner that restarts from a serialised `RunState` joins the waits it had.
 */
import { run, RunState, type Agent, type RunResult, type RunToolApprovalItem } from "@openai/agents";
import { idOf } from "./ids.js";
import type { TollgateRunner, Verdict } from "./runner.js";
import { whyCancelled } from "./frames.js";

export interface ApprovalOptions {
  runner: TollgateRunner;
  /** The Tollgate session the cards are raised in (registered on the runner). */
  sessionId: string;
  timeoutSeconds?: number;
  signal?: AbortSignal;
  /**
   * Called with the serialised `RunState` before the run parks: keep it, and a runner that
   * restarts resumes with `resumeWithApprovals` while the human takes hours.
   */
  onState?: (serialised: string) => void | Promise<void>;
}

/** Longest excerpt of a call's arguments on the card (the message has 4,000 characters). */
const ARGUMENTS = 3_000;

function callIdOf(item: RunToolApprovalItem): string {
  const raw = item.rawItem as { callId?: string; id?: string };
  const id = raw.callId ?? raw.id;
  if (!id) throw new Error(`the approval of ${item.name ?? "a tool"} has no call id`);
  return id;
}

/** What the card says: the agent, the tool and its arguments. */
export function approvalMessage(item: RunToolApprovalItem): string {
  const args = item.arguments ?? JSON.stringify(item.rawItem);
  const shown = args.length > ARGUMENTS ? `${args.slice(0, ARGUMENTS)}…` : args;
  return `${item.agent.name} wants to call ${item.name ?? item.rawItem.type} with ${shown}`;
}

/** One elicitation per pending approval, all raised at once; each verdict applied to the state. */
// biome-ignore lint/suspicious/noExplicitAny: the SDK's own bound for an agent of any context and output (its RunState and RunResult use it)
export async function decideApprovals(state: RunState<any, any>, items: RunToolApprovalItem[], o: ApprovalOptions): Promise<void> {
  const verdicts = await Promise.all(
    items.map(async (item): Promise<Verdict> => {
      const elicitationId = await idOf("openai-agents:", `${o.sessionId}:${callIdOf(item)}`);
      return o.runner.elicit({ sessionId: o.sessionId, elicitationId, params: { message: approvalMessage(item) }, timeoutSeconds: o.timeoutSeconds, signal: o.signal });
    }),
  );
  items.forEach((item, i) => {
    const verdict = verdicts[i]!;
    if (verdict.action === "accept") state.approve(item);
    else state.reject(item, { message: verdict.message || rejection(verdict) });
  });
}

const rejection = (verdict: Verdict) =>
  verdict.reason === "timeout" ? "No human approved this call in time." : verdict.action === "decline" ? "A human declined this call." : `The approval was cancelled (${whyCancelled(verdict)}).`;

/** Run the agent to its end, asking a human in Tollgate at every interruption. */
// biome-ignore lint/suspicious/noExplicitAny: the SDK's own bound for an agent of any context and output (its RunState and RunResult use it)
export async function runWithApprovals<A extends Agent<any, any>>(agent: A, input: string | RunState<any, A>, o: ApprovalOptions): Promise<RunResult<any, A>> {
  let result = await run(agent, input);
  while (result.interruptions.length > 0) {
    await o.onState?.(result.state.toString());
    await decideApprovals(result.state, result.interruptions, o);
    result = await run(agent, result.state);
  }
  return result;
}

/** Resume a run from its serialised state: its pending approvals join their existing elicitations. */
// biome-ignore lint/suspicious/noExplicitAny: the SDK's own bound for an agent of any context and output (its RunState and RunResult use it)
export async function resumeWithApprovals<A extends Agent<any, any>>(agent: A, serialised: string, o: ApprovalOptions): Promise<RunResult<any, A>> {
  const state = await RunState.fromString(agent, serialised);
  await decideApprovals(state, state.getInterruptions(), o);
  return runWithApprovals(agent, state, o);
}
