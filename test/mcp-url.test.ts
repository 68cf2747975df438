/** URL-mode elicitation between real MCP peers: consent, decline, and the server's completion closing the card. */
import { afterAll, beforeAll, expect, it } from "vitest";
import { VERDICT_META } from "../sdk/mcp.js";
import { answer, mcpPeers, pendingIn, type Peers } from "./support/mcp.js";
import { startTollgate, type Harness } from "./support/tollgate.js";

let t: Harness;
let human: string;
let peers: Peers;
const SESSION = "mcp_url";
const signIn = (elicitationId: string) => ({ mode: "url" as const, message: "Sign in to the issue tracker", url: `https://tracker.example.com/oauth?state=${elicitationId}`, elicitationId });

beforeAll(async () => {
  t = await startTollgate();
  human = await t.token("human");
  peers = await mcpPeers(await t.runner({ sessions: [{ session_id: SESSION }] }), SESSION);
  await peers.server.server.ping(); // SDK 1.32.2 never cancels its request id 0: the elicitations come after
}, 60_000);
afterAll(async () => {
  await peers?.close();
  await t?.stop();
});

it("the card carries the address and the server's id as they are; accepting is the consent", async () => {
  const asked = peers.ask(signIn("tracker-1"));
  const id = await pendingIn(t, human, SESSION);
  const card = (await t.http(human, "GET", `/v1/elicitations/${id}`)).body;
  expect(card.event.params).toEqual(signIn("tracker-1"));
  const withContent = await answer(t, human, SESSION, id, { action: "accept", content: { ok: true } });
  expect(withContent.status).toBe(400);
  await answer(t, human, SESSION, id, { action: "accept" });
  const result = await asked;
  expect(result.action).toBe("accept");
  expect(result.content).toBeUndefined();
  // The server reports completion once the human is done out of band: nothing is waiting, nothing changes.
  await peers.server.server.createElicitationCompletionNotifier("tracker-1")();
  expect((await t.http(human, "GET", `/v1/elicitations/${id}`)).body.verdict).toMatchObject({ action: "accept", reason: "answered" });
});

it("a decline reaches the server", async () => {
  const asked = peers.ask(signIn("tracker-2"));
  const id = await pendingIn(t, human, SESSION);
  await answer(t, human, SESSION, id, { action: "decline" });
  expect((await asked).action).toBe("decline");
});

it("the server's completion notification closes the card still waiting for consent", async () => {
  const asked = peers.ask(signIn("tracker-3"));
  const id = await pendingIn(t, human, SESSION);
  await peers.server.server.createElicitationCompletionNotifier("another-id")(); // not this card: it stays
  expect((await t.http(human, "GET", `/v1/elicitations/${id}`)).body.status).toBe("pending");
  await peers.server.server.createElicitationCompletionNotifier("tracker-3")();
  const result = await asked;
  expect(result.action).toBe("cancel");
  expect(result._meta?.[VERDICT_META]).toEqual({ reason: "completed" });
  await expect
    .poll(async () => (await t.http(human, "GET", `/v1/elicitations/${id}`)).body.verdict, { timeout: 20_000 })
    .toMatchObject({ action: "cancel", reason: "cancelled", resolved_by: "runner-1" });
  expect((await t.http(human, "GET", `/v1/sessions/${SESSION}`)).body.pending_elicitations).toEqual([]);
});

it("an address Tollgate will not show is refused before any card exists", async () => {
  const reply = await peers.client.callTool({ name: "ask", arguments: { params: { ...signIn("tracker-4"), url: "ftp://files.example.com/key" } } });
  expect(reply.isError).toBe(true);
  expect(JSON.stringify(reply.content)).toContain("url must be an absolute http or https URL");
});
