/**
 * A refusal says, in English, which field is wrong and how, from a function as Lambda runs it. The
 * functions' schemas are built with zod's mini build, which leaves zod's messages off unless they are
 * switched on (functions/shared/zod.ts). A test process cannot show that: anything in it that loads
 * zod's full build switches them on for every schema. So each function here is bundled as the stack
 * bundles it and handles one bad event in a fresh Node process, and its refusal must read as zod's
 * full build words the same problem.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import * as full from "zod";
import { bundle } from "../bench/phases/cold-start.js";
import { coldEvent } from "../bench/coldstart/events.js";
import { functions, type FunctionName } from "../functions/catalog.js";
import { mintToken } from "../local/tokens.js";

const run = promisify(execFile);
const SECRET = "refusal-messages-secret";
const work = mkdtempSync(join(tmpdir(), "tollgate-refusals-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const bundles = new Map<FunctionName, Promise<{ file: string }>>();
/** `name`'s bundle, built once for the whole file. */
const bundleOf = (name: FunctionName) => bundles.get(name) ?? bundles.set(name, bundle(functions[name].entry, join(work, name))).get(name)!;

/** The reply of `name`'s bundle to its cold start event with `body` in place of its own, in a process of its own. */
async function refusalOf(name: FunctionName, body: object): Promise<Record<string, unknown>> {
  const spec = functions[name];
  const { file } = await bundleOf(name);
  const event = { ...(coldEvent(spec, await mintToken(SECRET, { sub: "refusals", tenant: "refusals", role: "runner" })) as object), body: JSON.stringify(body) };
  const script = `const { handler } = await import(${JSON.stringify(file)}); process.stdout.write((await handler(JSON.parse(process.argv[1]), {})).body);`;
  const env = { PATH: process.env.PATH, AWS_REGION: "us-east-1", TOLLGATE_TABLE: "refusals", TOLLGATE_CONNECTIONS_URL: "http://127.0.0.1:9", TOLLGATE_JWT_SECRET: SECRET };
  const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script, JSON.stringify(event)], { env, timeout: 60_000 });
  return JSON.parse(stdout);
}

/** How zod's full build words the first problem of `value` under `schema`. */
const worded = (schema: full.ZodType, value: unknown) => schema.safeParse(value).error?.issues[0]?.message;

describe("refusal messages, from a bundled function in a fresh process", () => {
  it("over HTTP, a title too long", async () => {
    const reply = await refusalOf("httpPutSession", { title: "t".repeat(257) });
    expect(reply).toEqual({ error: { code: "bad_request", message: `title: ${worded(full.string().max(256), "t".repeat(257))}` } });
  });

  it("over HTTP, a timeout that is not whole and an action Tollgate does not know", async () => {
    const fraction = await refusalOf("httpPostEvent", { type: "response.elicitation_request", params: { message: "Ok?" }, timeout_seconds: 1.5 });
    expect(fraction).toEqual({ error: { code: "bad_request", message: `timeout_seconds: ${worded(full.number().int(), 1.5)}` } });
    const unknown = await refusalOf("httpPostEvent", { type: "approval", elicitation_id: "e1", action: "maybe" });
    expect(unknown).toEqual({ error: { code: "bad_request", message: `action: ${worded(full.enum(["accept", "decline", "cancel"]), "maybe")}` } });
  });

  it("over WebSocket, a question that is not a string", async () => {
    const reply = await refusalOf("wsElicit", { action: "elicit", session_id: "s1", params: { message: 42 } });
    expect(reply).toEqual({ type: "error", code: "bad_request", message: `params.message: ${worded(full.string(), 42)}` });
  });
});
