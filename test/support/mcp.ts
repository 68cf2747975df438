/**
 * Real MCP peers on the official SDK for the bridge's tests: a server whose tool asks with
 * `elicitInput`, and a client whose elicitation end is Tollgate's bridge, linked in memory.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ElicitRequest, ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { expect } from "vitest";
import * as z from "zod";
import { serveElicitations, type McpBridgeOptions } from "../../sdk/mcp.js";
import type { TollgateRunner } from "../../sdk/runner.js";
import type { Harness } from "./tollgate.js";

type AskParams = ElicitRequest["params"];

/** How long the server waits for the client's answer, and how the client waits for the tool. */
export interface Waits {
  timeout?: number;
  resetTimeoutOnProgress?: boolean;
  maxTotalTimeout?: number;
}

export interface Peers {
  client: Client;
  server: McpServer;
  /** What the server's tool got back from `elicitInput`, in order. */
  received: ElicitResult[];
  /** Calls the server's `ask` tool, which elicits `params` and returns what it got. */
  ask(params: AskParams, waits?: Waits): Promise<ElicitResult>;
  close(): Promise<void>;
}

/**
 * The server relays the progress it hears about its elicitation to the caller of its tool, as
 * docs/mcp.md tells server authors to: both waits then live as long as the human takes.
 */
export async function mcpPeers(runner: TollgateRunner, sessionId: string, serverWaits: Waits = {}, bridge: McpBridgeOptions = {}): Promise<Peers> {
  const received: ElicitResult[] = [];
  const server = new McpServer({ name: "deployer", version: "1.0.0" });
  server.registerTool("ask", { inputSchema: { params: z.record(z.string(), z.unknown()) } }, async ({ params }, extra) => {
    const token = extra._meta?.progressToken;
    const relay = (p: { progress: number; message?: string }) =>
      token === undefined ? undefined : void extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: p.progress, message: p.message } });
    const result = await server.server.elicitInput(params as AskParams, { ...serverWaits, onprogress: relay });
    received.push(result);
    return { content: [{ type: "text", text: JSON.stringify(result) }], structuredContent: result };
  });
  const client = new Client({ name: "agent", version: "1.0.0" });
  serveElicitations(client, runner, sessionId, bridge);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  return {
    client,
    server,
    received,
    async ask(params, waits = {}) {
      const reply = await client.callTool({ name: "ask", arguments: { params } }, undefined, { ...waits, onprogress: () => undefined });
      return reply.structuredContent as ElicitResult;
    },
    async close() {
      await client.close();
      await server.close();
    },
  };
}

/** The id of the one elicitation pending in a session, once it is there. */
export async function pendingIn(t: Harness, human: string, sessionId: string): Promise<string> {
  let id = "";
  await expect.poll(async () => (id = (await t.http(human, "GET", `/v1/sessions/${sessionId}`)).body?.pending_elicitations?.[0]?.elicitation_id ?? ""), { timeout: 20_000 }).not.toBe("");
  return id;
}

/** A human's answer over HTTP, as the inbox gives it. */
export function answer(t: Harness, human: string, sessionId: string, elicitationId: string, verdict: { action: string; content?: unknown; message?: string }) {
  return t.http(human, "POST", `/v1/sessions/${sessionId}/events`, { type: "approval", elicitation_id: elicitationId, ...verdict });
}
