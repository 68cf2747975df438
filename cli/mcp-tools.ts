/**
 * Tollgate as an MCP server for agents: `request_approval` asks a human anything (a form or a yes),
 * `permission_prompt` answers Claude Code's `--permission-prompt-tool`. Both park through the runner
 * SDK, in the caller's session (docs/mcp.md).
 */
import { randomUUID } from "node:crypto";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import * as z from "zod";
import { LIMITS } from "../functions/shared/schemas.js";
import { keepAlive, type ElicitationContext } from "../sdk/mcp.js";
import { TollgateError, type FormParams, type TollgateRunner, type Verdict } from "../sdk/runner.js";
import { whyCancelled } from "../sdk/frames.js";
import { AgentPresence } from "./presence.js";

export interface McpToolsOptions {
  /** The session to ask in when the caller names none (`--session`). */
  session?: string;
  /** The deadline when the caller gives none (`--timeout`; Tollgate's default otherwise). */
  timeoutSeconds?: number;
  /** While a human thinks, a call that carries a `progressToken` gets a progress notification this often (default 10 s). */
  progressEveryMs?: number;
  /** The agent at the other end: once it is gone, the calls still waiting withdraw their cards. */
  agent?: AgentPresence;
}

const SessionArg = z
  .string()
  .regex(/^[A-Za-z0-9_.:-]{1,128}$/)
  .optional()
  .describe("the session (conversation) the human sees this in; default: the server's --session");
const { min, max } = LIMITS.timeoutSeconds;

/** What a tool gets back: the verdict, and who gave it when Tollgate says so. */
const VerdictOut = {
  elicitation_id: z.string(),
  session_id: z.string(),
  action: z.enum(["accept", "decline", "cancel"]),
  content: z.record(z.string(), z.unknown()).optional(),
  reason: z.enum(["answered", "timeout", "cancelled", "runner_gone"]),
  message: z.string().optional().describe("what the human said with the verdict"),
  resolved_by: z.string().optional().describe("who answered (the sub of their token), or tollgate for a deadline"),
};

/** A verdict as a tool result: only the fields Tollgate gave, nothing made up. */
function verdictOut(verdict: Verdict) {
  const { elicitation_id, session_id, action, content, reason, message, resolved_by } = verdict;
  return { elicitation_id, session_id, action, reason, ...(content ? { content } : {}), ...(message !== undefined ? { message } : {}), ...(resolved_by !== undefined ? { resolved_by } : {}) };
}

/** Claude Code's answer to its permission prompt: allow with the input, or deny saying why. */
export function permissionAnswer(verdict: Verdict, input: Record<string, unknown>) {
  if (verdict.action === "accept") return { behavior: "allow" as const, updatedInput: input };
  if (verdict.reason === "timeout") return { behavior: "deny" as const, message: "No one answered the permission request in time (Tollgate timeout)." };
  if (verdict.action === "cancel") return { behavior: "deny" as const, message: `The permission request was cancelled (${whyCancelled(verdict)}).` };
  return { behavior: "deny" as const, message: verdict.message || "A human declined this tool call." };
}

function permissionQuestion(toolName: string, input: Record<string, unknown>): string {
  const shown = JSON.stringify(input, null, 2);
  const cut = LIMITS.messageLength - toolName.length - 40;
  return `Allow ${toolName}?\n${shown.length > cut ? `${shown.slice(0, cut - 1)}…` : shown}`;
}

export function tollgateMcpServer(runner: TollgateRunner, options: McpToolsOptions = {}): McpServer {
  const registered = new Set<string>();
  const agent = options.agent ?? new AgentPresence(); // one that never goes, unless the caller says when
  /** Parks in the caller's session (registered on first use) until the verdict. */
  async function park(sessionId: string | undefined, params: FormParams, timeoutSeconds: number | undefined, extra: ElicitationContext & { signal: AbortSignal }): Promise<Verdict> {
    const session = sessionId ?? options.session;
    if (!session) throw new Error("no session: pass session_id, or start the server with --session");
    if (!registered.has(session)) {
      await runner.addSession({ session_id: session });
      registered.add(session);
    }
    const stop = keepAlive(extra, options.progressEveryMs ?? 10_000); // so a caller with resetTimeoutOnProgress waits as long as the human takes
    try {
      const signal = AbortSignal.any([extra.signal, agent.signal]);
      return await agent.track(runner.elicit({ sessionId: session, elicitationId: `elicit_${randomUUID()}`, params, timeoutSeconds: timeoutSeconds ?? options.timeoutSeconds, signal }));
    } finally {
      stop();
    }
  }
  /** A refusal is a tool error the agent can read, with Tollgate's code. */
  const refused = (error: unknown) => ({
    isError: true,
    content: [{ type: "text" as const, text: error instanceof TollgateError ? `Tollgate refused: ${error.code}: ${error.message}` : String((error as Error)?.message ?? error) }],
  });

  const server = new McpServer({ name: "tollgate", version: "0.1.0" });
  server.registerTool(
    "request_approval",
    {
      description: "Ask a human and wait for the verdict: a plain approval, or a form (an MCP requestedSchema) the human fills in.",
      inputSchema: {
        message: z.string().min(1).max(LIMITS.messageLength).describe("the question, as the human sees it"),
        requestedSchema: z.record(z.string(), z.unknown()).optional().describe("an MCP elicitation form: {type:'object', properties, required}"),
        timeout_seconds: z.number().int().min(min).max(max).optional().describe("the deadline; silence then means timeout"),
        session_id: SessionArg,
      },
      outputSchema: VerdictOut,
    },
    async ({ message, requestedSchema, timeout_seconds, session_id }, extra) => {
      try {
        const params: FormParams = { message, ...(requestedSchema ? { requestedSchema: requestedSchema as FormParams["requestedSchema"] } : {}) };
        const out = verdictOut(await park(session_id, params, timeout_seconds, extra));
        return { structuredContent: out, content: [{ type: "text", text: JSON.stringify(out) }] };
      } catch (error) {
        return refused(error);
      }
    },
  );
  server.registerTool(
    "permission_prompt",
    {
      description: "Claude Code's --permission-prompt-tool: a human allows or denies the tool call.",
      inputSchema: {
        tool_name: z.string().min(1).max(256),
        input: z.record(z.string(), z.unknown()),
        tool_use_id: z.string().optional(),
        session_id: SessionArg,
      },
    },
    async ({ tool_name, input, session_id }, extra) => {
      try {
        const verdict = await park(session_id, { message: permissionQuestion(tool_name, input) }, undefined, extra);
        return { content: [{ type: "text", text: JSON.stringify(permissionAnswer(verdict, input)) }] };
      } catch (error) {
        return refused(error);
      }
    },
  );
  return server;
}
