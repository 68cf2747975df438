/**
 * The local stand-ins refuse what AWS refuses, in AWS's words and codes: Scheduler's validation of
 * one-time schedules, the HTTP API's 404 for a request no route matches and its CORS, API Gateway's WebSocket
 * frame, message, idle and lifetime limits, and the `@connections` API's size limit and 410 for a
 * closed connection; a runtime that stops lets no client back in. Time limits run on the runtime's
 * clock, which the test moves.
 */
import { GetConnectionCommand, PostToConnectionCommand } from "@aws-sdk/client-apigatewaymanagementapi";
import { CreateScheduleCommand, GetScheduleCommand, type CreateScheduleCommandInput } from "@aws-sdk/client-scheduler";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { atExpression } from "../functions/domain/timers.js";
import { startTollgate, TestSocket, type Harness } from "./support/tollgate.js";

let t: Harness;
let runner: string;
beforeAll(async () => {
  t = await startTollgate();
  runner = await t.token("runner");
});
afterAll(() => t?.stop());

const minutes = (n: number) => n * 60_000;

describe("Scheduler", () => {
  const target = {
    Arn: "arn:aws:lambda:us-east-1:000000000000:function:tollgate-timerDeadline",
    RoleArn: "arn:aws:iam::000000000000:role/tollgate-scheduler",
    Input: JSON.stringify({ tenant: "acme" }),
  };
  const create = (name: string, overrides: Partial<CreateScheduleCommandInput> = {}) =>
    t.runtime.clients.scheduler.send(
      new CreateScheduleCommand({
        Name: name,
        GroupName: "tollgate",
        ScheduleExpression: atExpression(new Date(t.clock.now() + minutes(5))),
        FlexibleTimeWindow: { Mode: "OFF" },
        Target: target,
        ...overrides,
      }),
    );
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (e: Error & { $metadata?: { httpStatusCode?: number } }) => ({ name: e.name, status: e.$metadata?.httpStatusCode, message: e.message }),
    );
  const exists = (name: string) =>
    t.runtime.clients.scheduler.send(new GetScheduleCommand({ Name: name, GroupName: "tollgate" })).then(
      () => true,
      () => false,
    );

  it("refuses an at() time that has passed, and keeps nothing", async () => {
    const passed = atExpression(new Date(t.clock.now() - 2_000));
    expect(await refusal(create("past-at", { ScheduleExpression: passed }))).toEqual({ name: "ValidationException", status: 400, message: `The ScheduleExpression ${passed} is in the past.` });
    expect(await exists("past-at")).toBe(false);
  });

  it("takes an at() time in the current second", async () => {
    await create("this-second", { ScheduleExpression: atExpression(new Date(t.clock.now())) });
    expect(await exists("this-second")).toBe(true);
  });

  it("refuses names over 64 characters or with other characters", async () => {
    expect(await refusal(create("n".repeat(65)))).toMatchObject({ name: "ValidationException", message: expect.stringContaining("Member must have length less than or equal to 64") });
    expect(await refusal(create("deadline#acme"))).toMatchObject({ name: "ValidationException", message: expect.stringContaining("regular expression pattern: [0-9a-zA-Z-_.]+") });
    expect(await exists("n".repeat(64).slice(0, 64))).toBe(false);
    await create("n".repeat(64));
    expect(await exists("n".repeat(64))).toBe(true);
  });

  it("checks a target's RetryPolicy and DeadLetterConfig, and takes valid ones", async () => {
    const dlq = "arn:aws:sqs:us-east-1:000000000000:tollgate-schedule-failures";
    expect(await refusal(create("retry-high", { Target: { ...target, RetryPolicy: { MaximumRetryAttempts: 186 } } }))).toMatchObject({
      name: "ValidationException",
      message: expect.stringContaining("maximumRetryAttempts"),
    });
    expect(await refusal(create("age-low", { Target: { ...target, RetryPolicy: { MaximumEventAgeInSeconds: 59 } } }))).toMatchObject({
      name: "ValidationException",
      message: expect.stringContaining("greater than or equal to 60"),
    });
    expect(await refusal(create("dlq-bad", { Target: { ...target, DeadLetterConfig: { Arn: "arn:aws:sns:us-east-1:000000000000:topic" } } }))).toMatchObject({
      name: "ValidationException",
      message: expect.stringContaining("deadLetterConfig.arn"),
    });
    // A client that is not the SDK may send Input as something other than a string.
    expect(await refusal(create("input-object", { Target: { ...target, Input: { tenant: "acme" } as unknown as string } }))).toMatchObject({
      name: "ValidationException",
      message: expect.stringContaining("target.input"),
    });
    for (const name of ["retry-high", "age-low", "dlq-bad", "input-object"]) expect(await exists(name)).toBe(false);
    await create("with-dlq", { Target: { ...target, RetryPolicy: { MaximumRetryAttempts: 185, MaximumEventAgeInSeconds: 86_400 }, DeadLetterConfig: { Arn: dlq } } });
    expect(await exists("with-dlq")).toBe(true);
  });

  it("refuses a schedule without its flexible time window, or with a target or role ARN AWS would not take", async () => {
    // What a function gets in the cloud for a timer its catalog entry does not list: no ARN in its environment.
    expect(await refusal(create("no-target", { Target: { ...target, Arn: "" } }))).toMatchObject({
      name: "ValidationException",
      message: expect.stringContaining("'target.arn' failed to satisfy constraint: Member must have length greater than or equal to 1"),
    });
    expect(await refusal(create("no-role", { Target: { ...target, RoleArn: "" } }))).toMatchObject({ name: "ValidationException", message: expect.stringContaining("target.roleArn") });
    expect(await refusal(create("user-role", { Target: { ...target, RoleArn: "arn:aws:iam::000000000000:user/someone" } }))).toMatchObject({
      name: "ValidationException",
      message: expect.stringContaining("target.roleArn"),
    });
    expect(await refusal(create("empty-input", { Target: { ...target, Input: "" } }))).toMatchObject({ name: "ValidationException", message: expect.stringContaining("target.input") });
    expect(await refusal(create("no-window", { FlexibleTimeWindow: undefined }))).toMatchObject({
      name: "ValidationException",
      message: expect.stringContaining("'flexibleTimeWindow' failed to satisfy constraint: Member must not be null"),
    });
    expect(await refusal(create("bad-window", { FlexibleTimeWindow: { Mode: "LATER" as "OFF" } }))).toMatchObject({
      name: "ValidationException",
      message: expect.stringContaining("flexibleTimeWindow.mode"),
    });
    expect(await refusal(create("wide-window", { FlexibleTimeWindow: { Mode: "FLEXIBLE", MaximumWindowInMinutes: 1441 } }))).toMatchObject({
      name: "ValidationException",
      message: expect.stringContaining("flexibleTimeWindow.maximumWindowInMinutes"),
    });
    for (const name of ["no-target", "no-role", "user-role", "empty-input", "no-window", "bad-window", "wide-window"]) expect(await exists(name)).toBe(false);
    await create("flexible", { FlexibleTimeWindow: { Mode: "FLEXIBLE", MaximumWindowInMinutes: 15 } });
    expect(await exists("flexible")).toBe(true);
  });
});

/** A runner socket that said hello: its connection id. */
async function helloSocket(token = runner): Promise<{ socket: TestSocket; id: string }> {
  const socket = await t.socket(token);
  const ok = await socket.request({ action: "hello", sessions: [] });
  return { socket, id: ok.connection_id };
}

const post = (id: string, data: string) =>
  t.runtime.clients.connections.send(new PostToConnectionCommand({ ConnectionId: id, Data: data })).then(
    () => "sent",
    (e: Error & { $metadata?: { httpStatusCode?: number } }) => `${e.name} ${e.$metadata?.httpStatusCode}`,
  );

describe("HTTP API", () => {
  it("answers a request no route matches with API Gateway's own 404, before any function or token check", async () => {
    const human = await t.token("human");
    const misses: [string, string][] = [
      ["GET", "/v1/nope"],
      ["DELETE", "/v1/sessions/s1"],
      ["POST", "/v1/elicitations/e1"],
      ["PATCH", "/v1/sessions/s1"],
      ["GET", "/v1/sessions/s1/events/extra"],
    ];
    for (const [method, path] of misses) {
      for (const token of [human, undefined]) {
        const response = await fetch(`${t.runtime.httpUrl}${path}`, { method, headers: token ? { authorization: `Bearer ${token}` } : {} });
        expect(response.status, `${method} ${path}`).toBe(404);
        expect(response.headers.get("content-type")).toContain("application/json");
        expect(await response.json()).toEqual({ message: "Not Found" });
      }
    }
    // A route that exists answers in the contract's words.
    const missing = await t.http(human, "GET", "/v1/elicitations/e_none");
    expect(missing.body).toEqual({ error: { code: "not_found", message: expect.any(String) } });
  });

  it("answers CORS preflights for any origin, and its replies to a page of another origin carry the allow-origin header", async () => {
    const origin = "http://localhost:3000";
    const preflight = await fetch(`${t.runtime.httpUrl}/v1/sessions/s1/events`, {
      method: "OPTIONS",
      headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "authorization,content-type" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
    expect(preflight.headers.get("access-control-allow-methods")?.split(",")).toEqual(expect.arrayContaining(["GET", "PUT", "POST", "DELETE"]));
    expect(preflight.headers.get("access-control-allow-headers")?.split(",")).toEqual(expect.arrayContaining(["authorization", "content-type"]));
    expect(preflight.headers.get("access-control-max-age")).toBe("3600");
    const human = await t.token("human");
    for (const token of [human, undefined]) {
      const response = await fetch(`${t.runtime.httpUrl}/v1/sessions`, { headers: { origin, ...(token ? { authorization: `Bearer ${token}` } : {}) } });
      expect(response.headers.get("access-control-allow-origin"), `status ${response.status}`).toBe("*");
    }
    // A page of another origin may read the reply headers the contract names: a history page's next cursor, a refusal's retry time.
    const page = await fetch(`${t.runtime.httpUrl}/v1/history?format=jsonl`, { headers: { origin, authorization: `Bearer ${human}` } });
    expect(page.headers.get("access-control-expose-headers")?.split(",")).toEqual(expect.arrayContaining(["x-next-cursor", "retry-after"]));
    // No origin, no preflight: an OPTIONS request is one no route takes.
    expect((await fetch(`${t.runtime.httpUrl}/v1/sessions`, { method: "OPTIONS" })).status).toBe(404);
  });
});

describe("WebSocket API", () => {
  const ping = (pad: number) => JSON.stringify({ action: "ping", ref: "p", pad: "x".repeat(pad) });

  it("closes the socket with 1009 on a frame over 32 KB; the handler never sees it", async () => {
    const { socket } = await helloSocket();
    socket.send(ping(33 * 1024));
    expect((await socket.closed).code).toBe(1009);
    expect(socket.count((f) => f.ref === "p")).toBe(0);
  });

  it("takes a 100 KB message in frames of 25 KB, and closes with 1009 on one over 128 KB", async () => {
    const sendInFrames = (socket: TestSocket, text: string) => {
      for (let i = 0; i < text.length; i += 25 * 1024) socket.ws.send(text.slice(i, i + 25 * 1024), { fin: i + 25 * 1024 >= text.length });
    };
    const { socket } = await helloSocket();
    sendInFrames(socket, ping(100 * 1024));
    expect(await socket.next((f) => f.ref === "p")).toBeDefined(); // reached the ping handler (its reply, whatever it says)
    sendInFrames(socket, JSON.stringify({ action: "ping", ref: "q", pad: "x".repeat(129 * 1024) }));
    expect((await socket.closed).code).toBe(1009);
    expect(socket.count((f) => f.ref === "q")).toBe(0);
  });

  it("refuses a post over 128 KB with PayloadTooLargeException, and the connection stays", async () => {
    const { socket, id } = await helloSocket();
    expect(await post(id, JSON.stringify({ type: "x", pad: "x".repeat(128 * 1024) }))).toBe("PayloadTooLargeException 413");
    expect(await post(id, JSON.stringify({ type: "small" }))).toBe("sent");
    await socket.next((f) => f.type === "small");
  });

  it("closes a connection idle for 10 minutes (1001); a post to it then answers GoneException 410", async () => {
    const { socket, id } = await helloSocket();
    const other = await helloSocket();
    await t.clock.advance(minutes(9));
    expect((await other.socket.request({ action: "ping" })).type).toBe("pong"); // activity keeps this one open
    await t.clock.advance(minutes(1));
    expect((await socket.closed).code).toBe(1001);
    expect(await post(id, JSON.stringify({ type: "late" }))).toBe("GoneException 410");
    expect(await post(other.id, JSON.stringify({ type: "still-here" }))).toBe("sent");
  });

  it("closes a connection after 2 hours however active it is", async () => {
    const { socket, id } = await helloSocket();
    for (let elapsed = 0; elapsed < minutes(117); elapsed += minutes(9)) {
      await t.clock.advance(minutes(9));
      expect((await socket.request({ action: "ping" })).type).toBe("pong");
    }
    const info = await t.runtime.clients.connections.send(new GetConnectionCommand({ ConnectionId: id }));
    expect(info.ConnectedAt!.getTime()).toBeLessThan(t.clock.now() - minutes(117));
    await t.clock.advance(minutes(3));
    expect((await socket.closed).code).toBe(1001);
    expect(await post(id, JSON.stringify({ type: "late" }))).toBe("GoneException 410");
  });

  it("a runtime that stops lets no client back in while it closes its connections", async () => {
    const own = await startTollgate();
    const token = await own.token("runner");
    const socket = await TestSocket.open(own.runtime.wsUrl, token); // not the harness's: the runtime closes it
    await socket.request({ action: "hello", sessions: [{ session_id: "going_away" }] });
    // A runner comes back the moment its socket closes, while the runtime still runs $disconnect for the others.
    const cameBack = new Promise<string>((resolve) => {
      socket.ws.once("close", () => {
        const again = new WebSocket(own.runtime.wsUrl, { headers: { authorization: `Bearer ${token}` } });
        again.once("open", () => (resolve("opened"), again.terminate()));
        again.once("unexpected-response", (_req, res) => resolve(`HTTP ${res.statusCode}`));
        again.once("error", () => resolve("refused"));
      });
    });
    await own.stop();
    expect(await cameBack).not.toBe("opened");
  });
});
