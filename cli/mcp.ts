/**
 * `tollgate mcp`: Tollgate as an MCP server (stdio, or Streamable HTTP with `--http <port>`), so
 * any MCP-capable agent can ask a human without an SDK. Its tools are in mcp-tools.ts.
 */
import { createServer } from "node:http";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { Command } from "commander";
import { LIMITS } from "../functions/shared/schemas.js";
import { TollgateRunner } from "../sdk/runner.js";
import { tollgateMcpServer, type McpToolsOptions } from "./mcp-tools.js";
import { note } from "./output.js";
import { AgentPresence } from "./presence.js";
import { settingsOf, tokenOf, wholeNumber } from "./settings.js";
import { openSocket } from "./socket.js";

interface McpOptions {
  session?: string;
  timeout?: string;
  http?: string;
}

/** Whether a request names a loopback host: a web page DNS-rebound to 127.0.0.1 names its own. */
function toLoopback(host: string | undefined): boolean {
  try {
    return ["127.0.0.1", "localhost", "[::1]"].includes(new URL(`http://${host}`).hostname);
  } catch {
    return false;
  }
}

/** Streamable HTTP, stateless: each POST gets its own server over the one runner connection. */
function serveHttp(runner: TollgateRunner, tools: McpToolsOptions, port: number) {
  const http = createServer((req, res) => {
    // MCP's transport rules: a local server validates the host of every request, so no web page can call its tools.
    if (!toLoopback(req.headers.host)) {
      const error = { code: -32000, message: `tollgate mcp answers requests for 127.0.0.1 and localhost only, not ${req.headers.host}` };
      res.writeHead(403, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", error, id: null }));
      return;
    }
    if (new URL(req.url ?? "/", "http://127.0.0.1").pathname !== "/mcp") {
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message: "tollgate mcp serves /mcp only" }, id: null }));
      return;
    }
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    const server = tollgateMcpServer(runner, tools);
    res.on("close", () => void transport.close().then(() => server.close()));
    server
      .connect(transport)
      .then(() => transport.handleRequest(req, res))
      .catch((error: Error) => {
        note(`tollgate mcp: ${error.message}`);
        if (!res.headersSent) res.writeHead(500).end();
      });
  });
  http.listen(port, "127.0.0.1", () => note(`tollgate mcp: Streamable HTTP on http://127.0.0.1:${(http.address() as { port: number }).port}/mcp`));
}

async function mcp(o: McpOptions, command: Command) {
  const settings = settingsOf(command);
  const { min, max } = LIMITS.timeoutSeconds;
  const tools: McpToolsOptions = { session: o.session, timeoutSeconds: o.timeout === undefined ? undefined : wholeNumber(o.timeout, "--timeout", min, max) };
  (await openSocket(settings)).terminate(); // the runner client retries forever: find out now whether Tollgate is there at all
  const runner = new TollgateRunner({ url: settings.wsUrl, token: tokenOf(settings), sessions: o.session ? [{ session_id: o.session }] : [] });
  await runner.connect();
  if (o.http !== undefined) return serveHttp(runner, tools, wholeNumber(o.http, "--http", 0, 65_535));
  const agent = new AgentPresence();
  const server = tollgateMcpServer(runner, { ...tools, agent });
  const transport = new StdioServerTransport();
  transport.onclose = () => runner.close(); // the agent is gone: nothing left to ask for
  await server.connect(transport);
  // The SDK's stdio transport does not notice that stdin ended; the cards still waiting are withdrawn first.
  process.stdin.once("end", () => void agent.gone().then(() => server.close()));
}

export function mcpCommand(program: Command) {
  program
    .command("mcp")
    .description("serve Tollgate's tools over MCP (stdio): request_approval, permission_prompt (runner or service token)")
    .option("--session <id>", "the session to ask in when a call names none (registered if new)")
    .option("--timeout <seconds>", "the deadline of a call that gives none (default: one day)")
    .option("--http <port>", "serve Streamable HTTP on 127.0.0.1:<port>/mcp instead of stdio (0: any free port)")
    .action(mcp);
}
