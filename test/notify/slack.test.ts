/**
 * A `slack` target gets Block Kit messages posted the way an incoming webhook takes them: a request
 * with its header, prompt, session (its title), who asks, deadline and a button that opens the approval
 * link; a resolution saying who decided and how.
 * Checked field by field against Block Kit's rules for these blocks (types, text objects, lengths).
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { startReceiver, type Receiver } from "../support/receiver.js";
import { eventually, startTollgate, type Harness } from "../support/tollgate.js";

let t: Harness;
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
  t = await startTollgate({ notifyRetryMs: [200] });
});
afterAll(async () => {
  await t?.stop();
  await receiver?.close();
});

/** Block Kit's text object: plain_text or mrkdwn, 1 to 3,000 characters. */
function expectText(o: any, type?: "plain_text" | "mrkdwn") {
  expect(["plain_text", "mrkdwn"]).toContain(o.type);
  if (type) expect(o.type).toBe(type);
  expect(typeof o.text).toBe("string");
  expect(o.text.length).toBeGreaterThan(0);
  expect(o.text.length).toBeLessThanOrEqual(3_000);
}

it("requests and resolutions are Block Kit messages with the prompt, session, who asks, deadline, link button and verdict", async () => {
  const service = await t.token("service");
  const created = await t.http(service, "PUT", "/v1/notification-targets/chat", { kind: "slack", url: receiver.url("/slack"), sessions: ["conv_slack"] });
  expect(created.status).toBe(201);
  expect(created.body.secret).toBeUndefined();
  const runner = await t.token("runner", "agent-7");
  await t.http(runner, "PUT", "/v1/sessions/conv_slack", { title: "Release <train> & co" });
  const raised = await t.http(runner, "POST", "/v1/sessions/conv_slack/events", { type: "response.elicitation_request", elicitation_id: "el_slack", params: { message: "Deploy to prod?" } });
  expect(raised.status).toBe(201);
  await eventually(() => expect(receiver.at("/slack")).toHaveLength(1), 20_000);
  const request = JSON.parse(receiver.at("/slack")[0].body);
  expect(receiver.at("/slack")[0].headers["content-type"]).toBe("application/json");
  expect(receiver.at("/slack")[0].headers["webhook-signature"]).toBeUndefined();
  expect(request.text).toBe("Approval needed: Deploy to prod?");
  expect(request.blocks.map((b: any) => b.type)).toEqual(["header", "section", "context", "actions"]);
  const [header, section, context, actions] = request.blocks;
  expectText(header.text, "plain_text");
  expect(header.text.text.length).toBeLessThanOrEqual(150);
  expect(header.text.text).toBe("Approval needed");
  expectText(section.text, "mrkdwn");
  expect(section.text.text).toBe("Deploy to prod?");
  expect(context.elements.length).toBeLessThanOrEqual(10);
  for (const e of context.elements) expectText(e, "mrkdwn");
  const deadline = raised.body.deadline;
  expect(deadline).toEqual(expect.any(String));
  // Slack's three markup characters are escaped: the title shows as written.
  expect(context.elements.map((e: any) => e.text)).toEqual(["*Session:* Release &lt;train&gt; &amp; co (conv_slack)", "*Asked by:* agent-7", `*Deadline:* ${deadline}`]);
  // The button: Block Kit's rules for a link button (plain_text up to 75 characters, a url up to 3,000, an action_id up to 255).
  expect(actions.elements).toHaveLength(1);
  const [button] = actions.elements;
  expect(button.type).toBe("button");
  expectText(button.text, "plain_text");
  expect(button.text.text.length).toBeLessThanOrEqual(75);
  expect(button.url.length).toBeLessThanOrEqual(3_000);
  expect(button.action_id.length).toBeLessThanOrEqual(255);
  expect(["primary", "danger"]).toContain(button.style);
  // It opens the standalone page with a link for this elicitation, which gives the verdict.
  const url = new URL(button.url);
  expect(`${url.origin}${url.pathname}`).toBe(`${t.runtime.httpUrl}/approval.html`);
  expect(url.searchParams.get("elicitation")).toBe("el_slack");
  const link = new URLSearchParams(url.hash.slice(1)).get("link")!;
  expect((await t.http(link, "GET", "/v1/link")).body.event.elicitation_id).toBe("el_slack");
  expect((await t.http(link, "POST", "/v1/link/verdict", { action: "decline" })).status).toBe(200);
  await eventually(() => expect(receiver.at("/slack")).toHaveLength(2), 20_000);
  const resolution = JSON.parse(receiver.at("/slack")[1].body);
  expect(resolution.blocks.map((b: any) => b.type)).toEqual(["section", "context"]);
  expectText(resolution.blocks[0].text, "mrkdwn");
  expect(resolution.blocks[0].text.text).toBe("Resolved: *decline* (answered) by target:chat through an approval link");
  expect(resolution.blocks[1].elements.map((e: any) => e.text)).toEqual(["*Session:* Release &lt;train&gt; &amp; co (conv_slack)"]);
  expect(resolution.text).toBe(resolution.blocks[0].text.text);
});
