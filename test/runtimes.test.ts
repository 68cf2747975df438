/**
 * Two local runtimes in one process: each hands its own services to its handlers (table, secret,
 * endpoints, clock), nothing goes through `process.env`, so neither sees or moves the other.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { steppedClock } from "../local/clock.js";
import { startRuntime, type Runtime } from "../local/runtime.js";
import { mintToken } from "../local/tokens.js";
import { TestSocket } from "./support/tollgate.js";

let a: Runtime;
let b: Runtime;
const secrets = { a: "secret-of-runtime-a", b: "secret-of-runtime-b" };
const environment = JSON.stringify(process.env);

beforeAll(async () => {
  // The second has a DynamoDB Local of its own: one DynamoDB Local serving two pollers' streams refuses
  // one of them (TrimmedDataAccessException), a limit of DynamoDB Local, not of the runtimes.
  const start = (secret: string, dynamoEndpoint?: string) =>
    startRuntime({
      port: 0,
      dynamoEndpoint,
      table: `tollgate-${randomUUID().slice(0, 8)}`,
      jwtSecret: secret,
      clock: steppedClock(),
      streamPollMs: 20,
      log: process.env.TOLLGATE_TEST_LOG ? (line) => console.error(line) : () => undefined,
    });
  [a, b] = await Promise.all([start(secrets.a, inject("dynamoEndpoint")), start(secrets.b)]);
});
afterAll(async () => Promise.all([a?.stop(), b?.stop()]));

const call = async (runtime: Runtime, token: string, method: string, path: string, body?: unknown) => {
  const response = await fetch(`${runtime.httpUrl}${path}`, { method, headers: { authorization: `Bearer ${token}` }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: response.status, body: await response.json() };
};

it("leaves the process environment as it found it", () => {
  expect(JSON.stringify(process.env)).toBe(environment);
});

it("each verifies tokens with its own secret and keeps its own table", async () => {
  const human = { a: await mintToken(secrets.a, { sub: "h", tenant: "acme", role: "human" }), b: await mintToken(secrets.b, { sub: "h", tenant: "acme", role: "human" }) };
  const runner = await mintToken(secrets.a, { sub: "r", tenant: "acme", role: "runner" });
  expect((await call(b, runner, "PUT", "/v1/sessions/conv_two", {})).status).toBe(401);
  expect((await call(a, runner, "PUT", "/v1/sessions/conv_two", {})).status).toBe(200);

  const socket = await TestSocket.open(a.wsUrl, runner);
  await socket.request({ action: "hello", sessions: [{ session_id: "conv_two" }] });
  expect((await socket.request({ action: "elicit", session_id: "conv_two", elicitation_id: "el_two", params: { message: "Which runtime?" } })).type).toBe("elicitation.parked");
  expect((await call(b, human.b, "GET", "/v1/elicitations/el_two")).status).toBe(404);
  expect((await call(a, human.a, "POST", "/v1/sessions/conv_two/events", { type: "approval", elicitation_id: "el_two", action: "accept" })).status).toBe(200);
  expect(await socket.next((f) => f.type === "elicitation.verdict")).toMatchObject({ elicitation_id: "el_two", action: "accept" });
  socket.close();
});

it("each fires its schedules on its own clock", async () => {
  const runner = { a: await mintToken(secrets.a, { sub: "r", tenant: "acme", role: "runner" }), b: await mintToken(secrets.b, { sub: "r", tenant: "acme", role: "runner" }) };
  const human = { a: await mintToken(secrets.a, { sub: "h", tenant: "acme", role: "human" }), b: await mintToken(secrets.b, { sub: "h", tenant: "acme", role: "human" }) };
  for (const [name, runtime] of [
    ["a", a],
    ["b", b],
  ] as const) {
    await call(runtime, runner[name], "PUT", "/v1/sessions/conv_clock", {});
    await call(runtime, runner[name], "POST", "/v1/sessions/conv_clock/events", {
      type: "response.elicitation_request",
      elicitation_id: "el_clock",
      params: { message: "timed?" },
      timeout_seconds: 600,
    });
  }
  const scheduled = (runtime: Runtime) => expect.poll(() => runtime.pendingSchedules(), { timeout: 10_000 }).toContain("deadline-acme-el_clock");
  await scheduled(a);
  await scheduled(b);
  await (a.clock as ReturnType<typeof steppedClock>).advance(600_000);
  await expect.poll(async () => (await call(a, human.a, "GET", "/v1/elicitations/el_clock")).body.verdict?.reason, { timeout: 10_000 }).toBe("timeout");
  expect((await call(b, human.b, "GET", "/v1/elicitations/el_clock")).body.status).toBe("pending");
  expect(b.pendingSchedules()).toContain("deadline-acme-el_clock");
});
