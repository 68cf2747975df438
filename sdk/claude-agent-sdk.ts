/**
 * The Claude Agent SDK's `canUseTool` answered by a human in Tollgate: one elicitation per tool
 * call (its id from the SDK's `toolUseID`), a sub-agent's calls in a child session, the SDK's
 * abort signal cancelling the elicitation, and a deny whenever no human allowed the call.
 */
import type { CanUseTool, PermissionResult } from "@anthropic-ai/claude-agent-sdk";
import { describeToolCall } from "./claude-code.js";
import { idOf } from "./ids.js";
import type { TollgateRunner, Verdict } from "./runner.js";
import { whyCancelled } from "./frames.js";

export interface CanUseToolOptions {
  runner: TollgateRunner;
  /** The Tollgate session of the agent (registered on the runner); sub-agents get child sessions under it. */
  sessionId: string;
  timeoutSeconds?: number;
}

const denial = (verdict: Verdict) =>
  verdict.message ||
  (verdict.reason === "timeout" ? "No human allowed this call in time." : verdict.action === "decline" ? "Declined by a human in Tollgate." : `Cancelled in Tollgate (${whyCancelled(verdict)}).`);

export function tollgateCanUseTool(o: CanUseToolOptions): CanUseTool {
  const children = new Map<string, Promise<string>>();
  /** The sub-agent's child session, registered once. */
  const sessionOf = (agentId: string | undefined): Promise<string> => {
    if (!agentId) return Promise.resolve(o.sessionId);
    let child = children.get(agentId);
    if (!child) {
      child = idOf(`${o.sessionId}:`, agentId).then(async (id) => (await o.runner.addSession({ session_id: id, parent_session_id: o.sessionId, title: `sub-agent ${agentId}` }), id));
      child.catch(() => children.delete(agentId)); // a failed registration is tried again on the next call
      children.set(agentId, child);
    }
    return child;
  };
  return async (toolName, input, options): Promise<PermissionResult> => {
    const { signal, toolUseID } = options;
    try {
      const sessionId = await sessionOf(options.agentID);
      const elicitationId = await idOf("claude-agent-sdk:", `${sessionId}:${toolUseID}`);
      const message = `${options.title ?? "Claude wants to use a tool"}: ${describeToolCall(toolName, input)}`;
      const verdict = await o.runner.elicit({ sessionId, elicitationId, params: { message }, timeoutSeconds: o.timeoutSeconds, signal });
      return verdict.action === "accept" ? { behavior: "allow", updatedInput: input, toolUseID } : { behavior: "deny", message: denial(verdict), toolUseID };
    } catch (error) {
      const why = signal.aborted ? "the request was aborted" : error instanceof Error ? error.message : String(error);
      return { behavior: "deny", message: `Denied: Tollgate could not ask a human (${why}).`, toolUseID };
    }
  };
}
