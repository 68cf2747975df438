/**
 * Plugs Tollgate into an MCP client as its elicitation handler: a server's `elicitation/create`
 * request parks on a Tollgate elicitation and its verdict is the MCP result.
 *
 *   import { mcpElicitationHandler } from "@tollgate/runner/mcp";
 *   client.setRequestHandler(ElicitRequestSchema, mcpElicitationHandler(runner, "conv_42"));
 */
import type { ElicitParams, TollgateRunner } from "./runner.js";

export interface McpElicitRequest {
  params: ElicitParams & Record<string, unknown>;
}

export interface McpElicitResult {
  action: "accept" | "decline" | "cancel";
  content?: Record<string, unknown>;
  [key: string]: unknown;
}

export function mcpElicitationHandler(runner: TollgateRunner, sessionId: string, options: { timeoutSeconds?: number } = {}) {
  return async (request: McpElicitRequest, extra?: { signal?: AbortSignal }): Promise<McpElicitResult> => {
    const { message, requestedSchema } = request.params;
    const verdict = await runner.elicit({
      sessionId,
      params: requestedSchema ? { message, requestedSchema } : { message },
      timeoutSeconds: options.timeoutSeconds,
      signal: extra?.signal,
    });
    return verdict.action === "accept" && verdict.content ? { action: "accept", content: verdict.content } : { action: verdict.action };
  };
}
