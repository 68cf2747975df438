/**
 * Notification targets over the API: only a `service` token manages them, each tenant sees its own,
 * bad URLs are refused with `bad_request` and change nothing, and a webhook's secret is shown once.
 * The cloud's URL rules (https only, public addresses only) run through the domain with the cloud's config.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { readConfig } from "../../functions/shared/config.js";
import { domainOver } from "../support/domain.js";
import { startTollgate, type Harness } from "../support/tollgate.js";

let t: Harness;
beforeAll(async () => (t = await startTollgate()));
afterAll(() => t?.stop());

const webhook = { kind: "webhook", url: "http://127.0.0.1:9/hook" };

it("a service token creates a webhook target with its secret once, and later replies never show it", async () => {
  const service = await t.token("service");
  const created = await t.http(service, "PUT", "/v1/notification-targets/ops", webhook);
  expect(created.status).toBe(201);
  expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
  expect(created.body.events).toEqual(["elicitation.requested", "elicitation.resolved", "elicitation.escalated", "elicitation.reminder"]);
  const read = await t.http(service, "GET", "/v1/notification-targets/ops");
  expect(read.status).toBe(200);
  expect(read.body.secret).toBeUndefined();
  const changed = await t.http(service, "PUT", "/v1/notification-targets/ops", { ...webhook, events: ["elicitation.requested"] });
  expect(changed.status).toBe(200);
  expect(changed.body.secret).toBeUndefined();
  expect(changed.body.events).toEqual(["elicitation.requested"]);
  // `events` and `sessions` are sets: each value once, as first given.
  const repeated = await t.http(service, "PUT", "/v1/notification-targets/ops", {
    ...webhook,
    events: ["elicitation.resolved", "elicitation.requested", "elicitation.resolved"],
    sessions: ["s1", "s2", "s1"],
  });
  expect([repeated.body.events, repeated.body.sessions]).toEqual([
    ["elicitation.resolved", "elicitation.requested"],
    ["s1", "s2"],
  ]);
  await t.http(service, "PUT", "/v1/notification-targets/ops", { ...webhook, events: ["elicitation.requested"] });
  const listed = await t.http(service, "GET", "/v1/notification-targets");
  expect(listed.body.targets.map((x: any) => [x.target_id, x.secret])).toEqual([["ops", undefined]]);
  const rotated = await t.http(service, "POST", "/v1/notification-targets/ops/rotate");
  expect(rotated.status).toBe(200);
  expect(rotated.body.secret).toMatch(/^whsec_/);
  expect(rotated.body.secret).not.toBe(created.body.secret);
});

it("runner and human tokens may not manage targets; another tenant neither sees nor deletes them", async () => {
  const service = await t.token("service");
  await t.http(service, "PUT", "/v1/notification-targets/mine", webhook);
  for (const role of ["runner", "human"] as const) {
    const token = await t.token(role);
    expect((await t.http(token, "PUT", "/v1/notification-targets/x", webhook)).body.error.code).toBe("forbidden");
    expect((await t.http(token, "GET", "/v1/notification-targets")).status).toBe(403);
    expect((await t.http(token, "DELETE", "/v1/notification-targets/mine")).status).toBe(403);
  }
  const other = await t.token("service", "svc", "globex");
  expect((await t.http(other, "GET", "/v1/notification-targets/mine")).body.error.code).toBe("not_found");
  expect((await t.http(other, "DELETE", "/v1/notification-targets/mine")).status).toBe(404);
  expect((await t.http(other, "GET", "/v1/notification-targets")).body).toEqual({ targets: [] });
  expect((await t.http(service, "GET", "/v1/notification-targets/mine")).status).toBe(200);
  expect((await t.http(service, "DELETE", "/v1/notification-targets/mine")).body).toEqual({ target_id: "mine", deleted: true });
  expect((await t.http(service, "GET", "/v1/notification-targets/mine")).status).toBe(404);
  expect((await t.http(undefined, "GET", "/v1/notification-targets")).status).toBe(401);
});

it("bad URLs and bodies are bad_request and create nothing", async () => {
  const service = await t.token("service");
  const bad = [
    { kind: "webhook", url: "ftp://127.0.0.1/x" },
    { kind: "webhook", url: "http://example.com/hook" },
    { kind: "webhook", url: "http://10.0.0.5/hook" },
    { kind: "webhook", url: "not a url" },
    { kind: "webhook", url: `https://example.com/${"a".repeat(2_100)}` },
    { kind: "webhook", url: "https://user:pw@example.com/" },
    { kind: "email", url: "https://example.com/" },
    { ...webhook, events: ["elicitation.deleted"] },
    { ...webhook, remind_after_seconds: 5 },
    { ...webhook, extra: true },
  ];
  for (const body of bad) {
    const reply = await t.http(service, "PUT", "/v1/notification-targets/bad", body);
    expect(reply.status, JSON.stringify(body).slice(0, 80)).toBe(400);
    expect(reply.body.error.code).toBe("bad_request");
  }
  expect((await t.http(service, "GET", "/v1/notification-targets/bad")).status).toBe(404);
  await t.http(service, "PUT", "/v1/notification-targets/kinds", webhook);
  expect((await t.http(service, "PUT", "/v1/notification-targets/kinds", { kind: "slack", url: webhook.url })).body.error.code).toBe("conflict");
});

it("in the cloud only https to public addresses is allowed", async () => {
  const cloud = domainOver(t, { config: { notify: { ...readConfig(process.env).notify, local: false } } });
  const service = { sub: "svc", tenant: "acme", role: "service" as const };
  const refused = [
    "http://127.0.0.1:9/hook",
    "http://203.0.113.9/hook",
    "https://127.0.0.1/hook",
    "https://localhost/hook",
    "https://10.1.2.3/hook",
    "https://172.16.0.1/hook",
    "https://192.168.1.1/hook",
    "https://169.254.169.254/latest/meta-data",
    "https://[::1]/hook",
    "https://[fd00::1]/hook",
    "https://[fe80::1]/hook",
    "https://[::ffff:10.0.0.1]/hook",
    "https://100.64.0.1/hook",
  ];
  for (const url of refused) {
    await expect(cloud.targets.put(service, "cloud", { kind: "webhook", url }), url).rejects.toMatchObject({ code: "bad_request" });
  }
  const ok = await cloud.targets.put(service, "cloud", { kind: "slack", url: "https://8.8.8.8/services/T000/B000/xyz" });
  expect(ok.created).toBe(true);
});
