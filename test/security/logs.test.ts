/**
 * Logs (structured JSON, Powertools) never contain a token or a `content` value, and
 * error bodies never carry a stack or an internal name, even when a handler fails unexpectedly
 * with an error whose message quotes the request.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { errorReply } from "../../functions/lambda/http.js";
import { errorFrame } from "../../functions/lambda/ws.js";
import { observeAwsCalls } from "../support/aws-calls.js";
import { startTollgate, type Harness } from "../support/tollgate.js";
import { rawHttp } from "./support.js";

// Everything the logger may say, at its most talkative (set before any module creates the logger).
vi.hoisted(() => {
  process.env.TOLLGATE_LOG_LEVEL = "DEBUG";
});

let t: Harness;
const captured: string[] = [];
const restore: (() => void)[] = [];

function capture() {
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream);
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      captured.push(String(chunk));
      return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof stream.write;
    restore.push(() => (stream.write = write));
  }
  for (const method of ["log", "info", "warn", "error", "debug", "trace"] as const) {
    const original = console[method];
    console[method] = (...args: unknown[]) => {
      captured.push(args.map(String).join(" "));
      original(...args);
    };
    restore.push(() => (console[method] = original));
  }
}

beforeAll(async () => {
  t = await startTollgate({ log: (line) => captured.push(line) });
  capture();
});
afterAll(async () => {
  for (const undo of restore) undo();
  await t?.stop();
});

describe("logs", () => {
  it("say nothing of tokens or content, through a whole scenario and its refusals", async () => {
    const secret = `CONTENT-SECRET-${randomUUID()}`;
    const number = 31_415_926;
    const runner = await t.token("runner", "log-runner");
    const human = await t.token("human", "log-human");
    const socket = await t.socket(runner);
    await socket.request({ action: "hello", sessions: [{ session_id: "conv_log" }] });
    const form = { type: "object", properties: { secret: { type: "string" }, n: { type: "integer" } }, required: ["secret"] };
    expect((await socket.request({ action: "elicit", session_id: "conv_log", elicitation_id: "el_log", params: { message: "Your secret?", requestedSchema: form } })).type).toBe("elicitation.parked");
    // Refusals that carry the secret: a bad content, a forbidden verdict, a bad token, a malformed frame.
    expect((await t.http(human, "POST", "/v1/sessions/conv_log/events", { type: "approval", elicitation_id: "el_log", action: "accept", content: { secret, n: 1.5 } })).status).toBe(400);
    expect((await t.http(runner, "POST", "/v1/sessions/conv_log/events", { type: "approval", elicitation_id: "el_log", action: "accept", content: { secret } })).status).toBe(403);
    expect((await rawHttp(t, `${human}x`, "GET", "/v1/sessions/conv_log")).status).toBe(401);
    expect((await socket.request({ action: "elicit", session_id: "conv_log", params: { message: secret, extra: secret } })).type).toBe("error");
    // The verdict itself, and its delivery (fast path and stream).
    const answer = await t.http(human, "POST", "/v1/sessions/conv_log/events", { type: "approval", elicitation_id: "el_log", action: "accept", content: { secret, n: number } });
    expect(answer.status).toBe(200);
    const verdict = await socket.next((f) => f.type === "elicitation.verdict" && f.elicitation_id === "el_log");
    expect(verdict.content).toEqual({ secret, n: number });
    await t.quietScan();

    const logs = captured.join("\n");
    for (const token of [runner, human]) {
      expect(logs).not.toContain(token);
      expect(logs).not.toContain(token.split(".")[2]); // not even the signature
    }
    expect(logs).not.toContain(secret);
    expect(logs).not.toContain(String(number));
  });

  it("an unexpected failure is logged as JSON by name only, answered 500 internal_error, and leaks nothing", async () => {
    const secret = `CONTENT-SECRET-${randomUUID()}`;
    const human = await t.token("human", "log-human-2");
    const runner = await t.token("runner", "log-runner-2");
    expect((await t.http(runner, "PUT", "/v1/sessions/conv_boom", {})).status).toBe(200);
    expect((await t.http(runner, "POST", "/v1/sessions/conv_boom/events", { type: "response.elicitation_request", elicitation_id: "el_boom", params: { message: "ok?" } })).status).toBe(201);
    // DynamoDB fails with a message that quotes the whole request, token included (the worst case).
    const stopFailing = observeAwsCalls(t.runtime.clients, ({ command, input }) => {
      if (command !== "TransactWriteItemsCommand") return;
      const error = new Error(`ValidationException: ${JSON.stringify(input)} for Bearer ${human} with 27182818`);
      error.name = "ValidationException";
      throw error;
    });
    const from = captured.length;
    let reply: Awaited<ReturnType<typeof rawHttp>>;
    try {
      reply = await rawHttp(t, human, "POST", "/v1/sessions/conv_boom/events", { json: { type: "approval", elicitation_id: "el_boom", action: "accept", content: { secret, pi: 27_182_818 } } });
    } finally {
      stopFailing();
    }
    expect(reply.status).toBe(500);
    expect(reply.json).toEqual({ error: { code: "internal_error", message: "internal error" } });
    const logged = captured.slice(from).join("\n");
    const line = logged.split("\n").find((l) => l.includes("unexpected failure"));
    expect(line, logged).toBeDefined();
    const entry = JSON.parse(line!);
    expect(entry).toMatchObject({ level: "ERROR", message: "unexpected failure", service: "tollgate", error: { name: "ValidationException" } });
    expect(logged).not.toContain(secret);
    expect(logged).not.toContain(human);
    expect(logged).not.toContain("27182818");
  });

  it("error replies built from any thrown value carry no stack, path or internal name", () => {
    const nasty = [
      new TypeError("Cannot read properties of undefined (reading 'x') at /work/main/functions/x.ts:1:1"),
      new RangeError("Maximum call stack size exceeded"),
      "a string",
      null,
      { stack: "at foo (bar.ts:1)" },
    ];
    for (const value of nasty) {
      const http = errorReply(value);
      expect(http.statusCode).toBe(500);
      expect(JSON.parse(http.body as string)).toEqual({ error: { code: "internal_error", message: "internal error" } });
      const frame = JSON.parse((errorFrame(value, "r1") as { body: string }).body);
      expect(frame).toEqual({ type: "error", code: "internal_error", message: "internal error", ref: "r1" });
    }
  });
});
