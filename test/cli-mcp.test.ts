/**
 * `tollgate mcp` over stdio, driven by the official SDK's Client as an agent drives it:
 * request_approval and permission_prompt, answered by a human over HTTP, declined, and timed out.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { request } from "node:http";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { tollgateMcpServer } from "../cli/mcp-tools.js";
import { answer, pendingIn } from "./support/mcp.js";
import { startTollgate, type Harness } from "./support/tollgate.js";

const bin = fileURLToPath(new URL("../bin/tollgate.js", import.meta.url));
let t: Harness;
let human: string;
const clients: Client[] = [];

beforeAll(async () => {
  t = await startTollgate();
  human = await t.token("human");
}, 60_000);
afterAll(async () => {
  for (const c of clients) await c.close();
  await t?.stop();
});

/** An agent's MCP client on `tollgate mcp` as a subprocess. */
async function agent(args: string[]) {
  const env = { PATH: process.env.PATH ?? "", NO_COLOR: "1", TOLLGATE_URL: t.runtime.httpUrl, TOLLGATE_TOKEN: await t.token("runner") };
  const client = new Client({ name: "agent", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [bin, "mcp", ...args], env, stderr: "pipe" }));
  clients.push(client);
  return client;
}
const text = (reply: unknown) => (reply as { content: { type: string; text: string }[] }).content[0].text;

it("lists both tools, request_approval with its output schema", async () => {
  const client = await agent(["--session", "mcp_cli_list"]);
  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name).sort()).toEqual(["permission_prompt", "request_approval"]);
  expect(tools.find((tool) => tool.name === "request_approval")?.outputSchema?.properties).toHaveProperty("action");
}, 60_000);

it("request_approval: a form answered by a human comes back as structured content, in the session the caller names", async () => {
  const client = await agent(["--session", "mcp_cli_default"]);
  const requestedSchema = { type: "object", properties: { env: { type: "string", enum: ["dev", "prod"] } }, required: ["env"] };
  const called = client.callTool({ name: "request_approval", arguments: { message: "Where to deploy?", requestedSchema, session_id: "mcp_cli_other" } });
  const id = await pendingIn(t, human, "mcp_cli_other");
  expect((await answer(t, human, "mcp_cli_other", id, { action: "accept", content: { env: "prod" } })).status).toBe(200);
  const reply = await called;
  expect(reply.isError).toBeFalsy();
  expect(reply.structuredContent).toMatchObject({ elicitation_id: id, session_id: "mcp_cli_other", action: "accept", content: { env: "prod" }, reason: "answered", resolved_by: "human-1" });
  expect(JSON.parse(text(reply))).toEqual(reply.structuredContent);

  const declined = client.callTool({ name: "request_approval", arguments: { message: "Drop the table?" } });
  const second = await pendingIn(t, human, "mcp_cli_default");
  await answer(t, human, "mcp_cli_default", second, { action: "decline", message: "Not during business hours." });
  expect((await declined).structuredContent).toMatchObject({ action: "decline", reason: "answered", session_id: "mcp_cli_default", message: "Not during business hours." });
}, 60_000);

it("request_approval: a deadline is a timeout, never a human's decline", async () => {
  const client = await agent(["--session", "mcp_cli_late"]);
  const reply = await client.callTool({ name: "request_approval", arguments: { message: "Anyone?", timeout_seconds: 1 } });
  expect(reply.structuredContent).toMatchObject({ action: "decline", reason: "timeout", resolved_by: "tollgate" });
}, 60_000);

it("permission_prompt: allow with the input as it was, deny with the reason, and a timeout that says so", async () => {
  const client = await agent(["--session", "mcp_cli_perm", "--timeout", "2"]);
  const input = { command: "git push --force", description: "push" };
  const allowed = client.callTool({ name: "permission_prompt", arguments: { tool_name: "Bash", input, tool_use_id: "toolu_1" } });
  const id = await pendingIn(t, human, "mcp_cli_perm");
  const card = (await t.http(human, "GET", `/v1/elicitations/${id}`)).body;
  expect(card.event.params.message).toContain("Allow Bash?");
  expect(card.event.params.message).toContain("git push --force");
  await answer(t, human, "mcp_cli_perm", id, { action: "accept" });
  const allowReply = await allowed;
  expect(allowReply.content).toHaveLength(1);
  expect(JSON.parse(text(allowReply))).toEqual({ behavior: "allow", updatedInput: input });

  const denied = client.callTool({ name: "permission_prompt", arguments: { tool_name: "Bash", input } });
  const second = await pendingIn(t, human, "mcp_cli_perm");
  await answer(t, human, "mcp_cli_perm", second, { action: "decline" });
  expect(JSON.parse(text(await denied))).toEqual({ behavior: "deny", message: "A human declined this tool call." });

  const explained = client.callTool({ name: "permission_prompt", arguments: { tool_name: "Bash", input } });
  const third = await pendingIn(t, human, "mcp_cli_perm");
  await answer(t, human, "mcp_cli_perm", third, { action: "decline", message: "Never force-push main." });
  expect(JSON.parse(text(await explained))).toEqual({ behavior: "deny", message: "Never force-push main." });

  const withdrawn = client.callTool({ name: "permission_prompt", arguments: { tool_name: "Bash", input } });
  const fourth = await pendingIn(t, human, "mcp_cli_perm");
  await answer(t, human, "mcp_cli_perm", fourth, { action: "cancel" });
  expect(JSON.parse(text(await withdrawn))).toEqual({ behavior: "deny", message: "The permission request was cancelled (by a human)." });

  const late = await client.callTool({ name: "permission_prompt", arguments: { tool_name: "Write", input: { file_path: "/etc/hosts" } } });
  expect(JSON.parse(text(late))).toEqual({ behavior: "deny", message: "No one answered the permission request in time (Tollgate timeout)." });
}, 90_000);

it("a call without any session is a tool error that says what to pass", async () => {
  const client = await agent([]);
  const reply = await client.callTool({ name: "request_approval", arguments: { message: "Where am I?" } });
  expect(reply.isError).toBe(true);
  expect(text(reply)).toContain("no session");
}, 60_000);

it("the server exits when the agent closes its stdin (an agent that died leaves no server behind), and withdraws the card it left waiting", async () => {
  const env = { PATH: process.env.PATH ?? "", NO_COLOR: "1", TOLLGATE_URL: t.runtime.httpUrl, TOLLGATE_TOKEN: await t.token("runner") };
  const server = spawn(process.execPath, [bin, "mcp", "--session", "mcp_cli_eof"], { env, stdio: ["pipe", "pipe", "pipe"] });
  const exited = once(server, "exit");
  const hello = { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "agent", version: "1.0.0" } } };
  server.stdin.write(`${JSON.stringify(hello)}\n`);
  await once(server.stdout, "data"); // initialized: the runner is connected
  const call = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "request_approval", arguments: { message: "Run the migration?" } } };
  server.stdin.write(`${JSON.stringify(call)}\n`);
  const id = await pendingIn(t, human, "mcp_cli_eof");
  server.stdin.end();
  const timer = setTimeout(() => server.kill(), 15_000);
  const [code, signal] = await exited;
  clearTimeout(timer);
  expect({ code, signal }).toEqual({ code: 0, signal: null });
  // Nobody waits for it any more: the card is closed now, not left to the reconnect grace.
  expect((await t.http(human, "GET", `/v1/elicitations/${id}`)).body).toMatchObject({ status: "resolved", verdict: { action: "cancel", reason: "cancelled" } });
}, 60_000);

it("a human slower than the caller's request timeout: progress keeps a call with resetTimeoutOnProgress alive", async () => {
  const runner = await t.runner();
  const server = tollgateMcpServer(runner, { session: "mcp_cli_slow", progressEveryMs: 200 });
  const client = new Client({ name: "agent", version: "1.0.0" });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  clients.push(client);
  let progress = 0;
  const waits = { timeout: 1_000, resetTimeoutOnProgress: true, maxTotalTimeout: 30_000, onprogress: () => void progress++ };
  const called = client.callTool({ name: "permission_prompt", arguments: { tool_name: "Bash", input: { command: "make" } } }, undefined, waits);
  const id = await pendingIn(t, human, "mcp_cli_slow");
  await new Promise((resolve) => setTimeout(resolve, 3_000)); // three request timeouts
  await answer(t, human, "mcp_cli_slow", id, { action: "accept" });
  expect(JSON.parse(text(await called))).toEqual({ behavior: "allow", updatedInput: { command: "make" } });
  expect(progress).toBeGreaterThan(3);
}, 60_000);

it("--http: an agent on 127.0.0.1 lists the tools at /mcp; a request for another host (a DNS-rebound web page) or another path is refused and asks no one", async () => {
  const env = { PATH: process.env.PATH ?? "", NO_COLOR: "1", TOLLGATE_URL: t.runtime.httpUrl, TOLLGATE_TOKEN: await t.token("runner") };
  const server = spawn(process.execPath, [bin, "mcp", "--session", "mcp_cli_http", "--http", "0"], { env, stdio: ["ignore", "ignore", "pipe"] });
  try {
    let said = "";
    server.stderr.on("data", (chunk) => void (said += chunk));
    await expect.poll(() => said, { timeout: 20_000 }).toMatch(/http:\/\/127\.0\.0\.1:\d+\/mcp/);
    const url = new URL(said.match(/http:\/\/127\.0\.0\.1:\d+\/mcp/)?.[0] ?? "");
    const client = new Client({ name: "agent", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(url));
    clients.push(client);
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(["permission_prompt", "request_approval"]);

    const call = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "request_approval", arguments: { message: "Paste this into your shell?" } } };
    const headers = { host: `rebound.example:${url.port}`, origin: `http://rebound.example:${url.port}`, "content-type": "application/json", accept: "application/json, text/event-stream" };
    const req = request(url, { method: "POST", headers });
    req.end(JSON.stringify(call));
    const [res] = await once(req, "response");
    res.resume();
    expect(res.statusCode).toBe(403);
    // The endpoint is /mcp, as the server says: another path is not found, and asks no one either.
    const elsewhere = request(new URL("/", url), { method: "POST", headers: { ...headers, host: url.host, origin: url.origin } });
    elsewhere.end(JSON.stringify(call));
    const [notThere] = await once(elsewhere, "response");
    notThere.resume();
    expect(notThere.statusCode).toBe(404);
    expect((await t.http(human, "GET", "/v1/sessions/mcp_cli_http")).body?.pending_elicitations ?? []).toEqual([]);
  } finally {
    server.kill();
  }
}, 60_000);
