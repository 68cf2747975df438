/**
 * Multi-round-trip (the 2026-07-28 revision's input-required results) between real peers on the
 * official v2 SDK: the server's tool returns an `input_required` result, the client's auto-fulfilment hands its elicitation to Tollgate's bridge,
 * a human answers over HTTP, and the retried call carries exactly that answer.
 */
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { McpServer, inputRequired } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, expect, it } from "vitest";
import * as z from "zod";
import { ELICITATION_CAPABILITY, McpElicitationBridge } from "../sdk/mcp.js";
import { answer, pendingIn } from "./support/mcp.js";
import { startTollgate, type Harness } from "./support/tollgate.js";

let t: Harness;
let human: string;
let client: Client;
let server: McpServer;
const SESSION = "mcp_mrtr";
const seen: unknown[] = [];

beforeAll(async () => {
  t = await startTollgate();
  human = await t.token("human");
  const bridge = new McpElicitationBridge(await t.runner({ sessions: [{ session_id: SESSION }] }), SESSION);
  server = new McpServer({ name: "deployer", version: "2.0.0" });
  server.registerTool("deploy", { inputSchema: z.object({ service: z.string() }) }, async ({ service }, ctx) => {
    const confirm = ctx.mcpReq.inputResponses?.confirm;
    if (!confirm) {
      const requestedSchema = { type: "object" as const, properties: { env: { type: "string" as const, enum: ["staging", "prod"] } }, required: ["env"] };
      return inputRequired({ inputRequests: { confirm: inputRequired.elicit({ message: `Deploy ${service} where?`, requestedSchema }) } });
    }
    seen.push(confirm);
    return { content: [{ type: "text", text: JSON.stringify(confirm) }] };
  });
  server.registerTool("sign_in", { inputSchema: z.object({}) }, async (_args, ctx) => {
    const login = ctx.mcpReq.inputResponses?.login;
    if (!login) return inputRequired({ inputRequests: { login: inputRequired.elicitUrl({ message: "Sign in to the tracker", url: "https://tracker.example.com/login" }) } });
    seen.push(login);
    return { content: [{ type: "text", text: "signed in" }] };
  });
  client = new Client({ name: "agent", version: "2.0.0" }, { capabilities: ELICITATION_CAPABILITY });
  client.setRequestHandler("elicitation/create", (request, ctx) => bridge.handle(request as Parameters<typeof bridge.handle>[0], ctx));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
}, 60_000);
afterAll(async () => {
  await client?.close();
  await server?.close();
  await t?.stop();
});

it("an input_required elicitation is answered by a human through Tollgate, and the retry carries the answer", async () => {
  const called = client.callTool({ name: "deploy", arguments: { service: "billing" } });
  const id = await pendingIn(t, human, SESSION);
  expect((await t.http(human, "GET", `/v1/elicitations/${id}`)).body.event.params.message).toBe("Deploy billing where?");
  await answer(t, human, SESSION, id, { action: "accept", content: { env: "staging" } });
  await called;
  expect(seen).toHaveLength(1);
  expect(seen[0]).toMatchObject({ action: "accept", content: { env: "staging" } });
  expect((seen[0] as { content: unknown }).content).toEqual({ env: "staging" });
});

it("a URL-mode input request, which carries no elicitationId in this revision, reaches the card with the id the client gave it", async () => {
  const called = client.callTool({ name: "sign_in", arguments: {} });
  const id = await pendingIn(t, human, SESSION);
  const params = (await t.http(human, "GET", `/v1/elicitations/${id}`)).body.event.params;
  expect(params).toMatchObject({ mode: "url", url: "https://tracker.example.com/login", elicitationId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
  await answer(t, human, SESSION, id, { action: "accept" });
  await called;
  expect(seen.at(-1)).toMatchObject({ action: "accept" });
});
