/**
 * Webhook deliveries end to end on the local runtime: a loopback receiver gets the requested,
 * resolved and escalated events, each verified with the `standardwebhooks` library; a receiver that
 * fails three times gets the same `webhook-id` each time and exactly one accepted delivery; a
 * hanging receiver holds back neither another target nor the verdict; a target that fails through
 * every retry is disabled and says why. Retries are configured 200 ms apart.
 */
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, expect, it } from "vitest";
import { eventually, startTollgate, type Harness } from "../support/tollgate.js";
import { startReceiver, type Receiver } from "../support/receiver.js";

let t: Harness;
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
  t = await startTollgate({ notifyRetryMs: [200, 200, 200], notifyTimeoutMs: 1_500, escalationGraceSeconds: 1 });
});
afterAll(async () => {
  await t?.stop();
  await receiver?.close();
});

async function target(id: string, body: Record<string, unknown>): Promise<Webhook> {
  const reply = await t.http(await t.token("service", "svc", (body.tenant as string) ?? "acme"), "PUT", `/v1/notification-targets/${id}`, { kind: "webhook", ...body, tenant: undefined });
  expect(reply.status).toBe(201);
  return new Webhook(reply.body.secret);
}

async function raise(session: string, id: string, parent?: string) {
  const runner = await t.token("runner");
  await t.http(runner, "PUT", `/v1/sessions/${session}`, parent ? { parent_session_id: parent } : {});
  const r = await t.http(runner, "POST", `/v1/sessions/${session}/events`, { type: "response.elicitation_request", elicitation_id: id, params: { message: `${id}?` } });
  expect(r.status).toBe(201);
}

const answer = async (session: string, id: string) => t.http(await t.token("human"), "POST", `/v1/sessions/${session}/events`, { type: "approval", elicitation_id: id, action: "accept" });

/** Verified with the library: the payload it returns, or it throws. */
const verified = (hook: Webhook, r: { body: string; headers: Record<string, string> }) => hook.verify(r.body, r.headers) as { type: string; data: any; link?: any };

it("a receiver gets requested and resolved, signed and verified, with the events' protocol shapes", async () => {
  const hook = await target("plain", { url: receiver.url("/plain"), sessions: ["conv_plain"] });
  await raise("conv_plain", "el_plain");
  const requested = await eventually(() => {
    expect(receiver.at("/plain")).toHaveLength(1);
    return receiver.at("/plain")[0];
  }, 20_000);
  const payload = verified(hook, requested);
  expect(payload.type).toBe("elicitation.requested");
  expect(payload.data).toMatchObject({ type: "response.elicitation_request", elicitation_id: "el_plain", session_id: "conv_plain", params: { message: "el_plain?" } });
  expect(requested.headers["webhook-id"]).toMatch(/^msg_[0-9a-f]{32}$/);
  // The approval link: the standalone page with a capability for this elicitation, expiring at its deadline.
  expect(payload.link.expires_at).toBe(payload.data.deadline);
  expect(new URL(payload.link.url).hash).toBe(`#link=${payload.link.token}`);
  expect((await t.http(payload.link.token, "GET", "/v1/link")).body.event.elicitation_id).toBe("el_plain");
  expect((await answer("conv_plain", "el_plain")).status).toBe(200);
  const resolved = await eventually(() => {
    expect(receiver.at("/plain")).toHaveLength(2);
    return receiver.at("/plain")[1];
  }, 20_000);
  expect(verified(hook, resolved)).toMatchObject({ type: "elicitation.resolved", data: { elicitation_id: "el_plain", action: "accept", resolved_by: "human-1" } });
  // A resolution carries no link: there is nothing left to answer.
  expect(verified(hook, resolved).link).toBeUndefined();
  expect(resolved.headers["webhook-id"]).not.toBe(requested.headers["webhook-id"]);
  // Tampering is caught by the library: the signature covers id, timestamp and body.
  expect(() => hook.verify(resolved.body.replace("accept", "decline"), resolved.headers)).toThrow();
});

it("500 three times then 200: the same webhook-id each time, exactly one accepted, the attempts on the target", async () => {
  receiver.plan("/flaky", [500, 500, 500, 200]);
  const hook = await target("flaky", { url: receiver.url("/flaky"), events: ["elicitation.requested"], sessions: ["conv_flaky"] });
  await raise("conv_flaky", "el_flaky");
  await eventually(() => expect(receiver.at("/flaky").map((r) => r.status)).toEqual([500, 500, 500, 200]), 30_000);
  const ids = new Set(receiver.at("/flaky").map((r) => r.headers["webhook-id"]));
  expect(ids.size).toBe(1);
  for (const r of receiver.at("/flaky")) expect(verified(hook, r).data.elicitation_id).toBe("el_flaky");
  const service = await t.token("service", "svc");
  const read = await eventually(async () => {
    const r = await t.http(service, "GET", "/v1/notification-targets/flaky");
    expect(r.body.last_attempts).toHaveLength(4);
    return r.body;
  });
  expect(read.last_attempts.map((a: any) => a.status)).toEqual([200, 500, 500, 500]);
  expect(read.disabled_reason).toBeUndefined();
  await t.quietScan();
  expect(receiver.at("/flaky")).toHaveLength(4);
});

it("a hanging receiver holds back neither the verdict nor another target", async () => {
  receiver.plan("/hangs", ["hang"]);
  await target("hangs", { url: receiver.url("/hangs"), sessions: ["conv_hang"] });
  const hook = await target("beside", { url: receiver.url("/beside"), sessions: ["conv_hang"] });
  await raise("conv_hang", "el_hang");
  await eventually(() => expect(receiver.at("/hangs")).toHaveLength(1), 20_000);
  await eventually(() => expect(receiver.at("/beside")).toHaveLength(1), 20_000);
  // The first attempt to /hangs is still open: the verdict goes through, and /beside hears of it.
  expect(receiver.at("/hangs")).toHaveLength(1);
  expect((await answer("conv_hang", "el_hang")).status).toBe(200);
  await eventually(() => expect(receiver.at("/beside").map((r) => verified(hook, r).type)).toEqual(["elicitation.requested", "elicitation.resolved"]), 20_000);
});

it("a target that fails through every retry is disabled, says why, and gets nothing more", async () => {
  receiver.plan("/dead", [503]);
  await target("dead", { url: receiver.url("/dead"), events: ["elicitation.requested"], sessions: ["conv_dead"] });
  await raise("conv_dead", "el_dead_1");
  const service = await t.token("service", "svc");
  const read = await eventually(async () => {
    const r = await t.http(service, "GET", "/v1/notification-targets/dead");
    expect(r.body.disabled_reason).toBeDefined();
    return r.body;
  }, 30_000);
  expect(read.disabled_reason).toContain("HTTP 503");
  expect(read.last_attempts.map((a: any) => a.status)).toEqual([503, 503, 503, 503]);
  await raise("conv_dead", "el_dead_2");
  await t.quietScan();
  expect(receiver.at("/dead")).toHaveLength(4);
  // A PUT enables it again.
  receiver.plan("/dead", [200]);
  const again = await t.http(service, "PUT", "/v1/notification-targets/dead", { kind: "webhook", url: receiver.url("/dead"), events: ["elicitation.requested"], sessions: ["conv_dead"] });
  expect(again.body.disabled_reason).toBeUndefined();
  await raise("conv_dead", "el_dead_3");
  await eventually(() => expect(receiver.at("/dead").map((r) => r.status)).toEqual([503, 503, 503, 503, 200]), 20_000);
});

it("a child's block notice reaches the targets as elicitation.escalated", async () => {
  const hook = await target("blocks", { url: receiver.url("/blocks"), events: ["elicitation.escalated"], sessions: ["conv_parent"] });
  await t.http(await t.token("runner"), "PUT", "/v1/sessions/conv_parent", {});
  await raise("conv_child", "el_block", "conv_parent");
  const r = await eventually(() => {
    expect(receiver.at("/blocks")).toHaveLength(1);
    return receiver.at("/blocks")[0];
  }, 30_000);
  expect(verified(hook, r)).toMatchObject({ type: "elicitation.escalated", data: { elicitation_id: "el_block", session_id: "conv_child", ancestors: ["conv_parent"], round: 1 } });
});
