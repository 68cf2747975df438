/**
 * Every AWS call a handler makes is one its IAM policy allows. The handlers run for real across
 * every route, the stream and the timers; each call is seen by a middleware on the SDK clients the
 * functions call AWS through (the runtime builds them as functions/lambda/services.ts does), attributed to the function that made it
 * and checked against functions/catalog.ts, which is what infra/ builds each policy from (test/infra
 * checks that side). The token secret's Secrets Manager read is the cloud's only other call; the local
 * runtime hands the secret to the functions directly instead.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { functions, type DynamoAction, type FunctionName, readsJwtSecret, type TimerName, timerFunctions } from "../functions/catalog.js";
import { functionArn } from "../local/lambda.js";
import { mintToken } from "../local/tokens.js";
import { observeAwsCalls } from "./support/aws-calls.js";
import { startReceiver, type Receiver } from "./support/receiver.js";
import { SECRET, eventually, sleep, startTollgate, type Harness } from "./support/tollgate.js";

type Call = { fn: FunctionName; client: string; command: string; actions: string[]; timer?: TimerName };
const calls: Call[] = [];

/** The IAM actions a call needs: its operation, or for a transaction the operation of each of its items. */
function actionsOf(command: string, input: any): string[] {
  const operation = command.replace(/Command$/, "");
  if (operation !== "TransactWriteItems") return [operation];
  const item = { Put: "PutItem", Update: "UpdateItem", Delete: "DeleteItem", ConditionCheck: "ConditionCheckItem" } as Record<string, string>;
  return input.TransactItems.map((write: object) => item[Object.keys(write)[0]]);
}

/** The timer a schedule targets: in the cloud a function knows the ARNs of its entry's `scheduler` timers only. */
const timerOf = (input: any): TimerName | undefined => (Object.keys(timerFunctions) as TimerName[]).find((timer) => input?.Target?.Arn && functionArn(timerFunctions[timer]) === input.Target.Arn);

let t: Harness;
let receiver: Receiver;
let stopObserving = () => {};
beforeAll(async () => {
  receiver = await startReceiver();
  t = await startTollgate({ notifyRetryMs: [200] });
  stopObserving = observeAwsCalls(t.runtime.clients, ({ fn, client, command, input }) => {
    if (fn) calls.push({ fn, client, command, actions: actionsOf(command, input), timer: timerOf(input) });
  });
});
afterAll(async () => {
  stopObserving();
  await t?.stop();
  await receiver?.close();
});

/** Drive every function: each route, the stream and every timer. */
async function everything() {
  const human = await t.token("human");
  const runner = await t.token("runner");
  const service = await t.token("service");
  // One failed attempt and its retry: the delivery schedules its next attempt. A pending elicitation's reminder comes a minute later.
  receiver.plan("/iam", [500, 200]);
  const iamTarget = { kind: "webhook", url: receiver.url("/iam"), events: ["elicitation.requested", "elicitation.reminder"], sessions: ["iam_http", "iam_remind"], remind_after_seconds: 60 };
  await t.http(service, "PUT", "/v1/notification-targets/iam", iamTarget);
  await t.http(service, "GET", "/v1/notification-targets");
  await t.http(service, "GET", "/v1/notification-targets/iam");
  await t.http(service, "POST", "/v1/notification-targets/iam/rotate");
  const inbox = await t.socket(human);
  await inbox.request({ action: "subscribe", sessions: "*" });
  await inbox.request({ action: "launch" });
  await inbox.request({ action: "ping" });
  const parent = await t.socket(runner);
  await parent.request({ action: "hello", sessions: [{ session_id: "iam_parent" }] });
  const child = await t.socket(runner);
  await child.request({ action: "hello", sessions: [{ session_id: "iam_child", parent_session_id: "iam_parent" }] });
  await child.request({ action: "elicit", session_id: "iam_child", elicitation_id: "iam_escalates", params: { message: "escalate?" } });
  await child.request({ action: "elicit", session_id: "iam_child", elicitation_id: "iam_cancelled", params: { message: "cancel?" } });
  await child.request({ action: "cancel", elicitation_id: "iam_cancelled" });
  await child.request({ action: "elicit", session_id: "iam_child", elicitation_id: "iam_times_out", params: { message: "deadline?" }, timeout_seconds: 60 });
  await t.scheduled("deadline-acme-iam_times_out");
  await t.elapse(60_000);
  await t.scheduled("escalation-acme-iam_escalates");
  await t.elapse(120_000); // the escalation grace
  await parent.next((f) => f.kind === "notice", 10_000);
  // Its deadline fired as the clock moved past it, before the session cancel below.
  await child.next((f) => f.type === "elicitation.verdict" && f.elicitation_id === "iam_times_out", 10_000);
  await t.http(runner, "PUT", "/v1/sessions/iam_http", { title: "codex:iam" });
  await t.http(runner, "POST", "/v1/sessions/iam_http/events", { type: "response.elicitation_request", elicitation_id: "iam_h1", params: { message: "h1?" } });
  await t.http(runner, "POST", "/v1/sessions/iam_http/events", { type: "response.elicitation_request", elicitation_id: "iam_h2", params: { message: "h2?" } });
  await t.http(runner, "PUT", "/v1/sessions/iam_remind", {});
  await t.http(runner, "POST", "/v1/sessions/iam_remind/events", { type: "response.elicitation_request", elicitation_id: "iam_reminds", params: { message: "still there?" } });
  await t.http(runner, "POST", "/v1/sessions/iam_http/messages", { text: "held" });
  await t.http(runner, "GET", "/v1/sessions/iam_http/peek");
  await t.http(human, "GET", "/v1/sessions?limit=1");
  await t.http(human, "GET", "/v1/sessions?ids=iam_http,iam_child");
  await t.http(human, "GET", "/v1/sessions?pending=true");
  await t.http(human, "GET", "/v1/sessions/iam_parent");
  await t.http(human, "GET", "/v1/elicitations/iam_h1");
  await t.http(runner, "POST", "/v1/sessions/iam_http/events", { type: "response.elicitation_request", elicitation_id: "iam_h3", params: { message: "h3?" } });
  const link = (await t.http(human, "POST", "/v1/elicitations/iam_h3/link", {})).body.token;
  await t.http(link, "GET", "/v1/link");
  await t.http(link, "POST", "/v1/link/verdict", { action: "decline" });
  await t.http(human, "POST", "/v1/sessions/iam_http/events", { type: "approval", elicitation_id: "iam_h1", action: "accept" });
  await t.http(runner, "POST", "/v1/sessions/iam_http/events", { type: "response.elicitation_resolved", elicitation_id: "iam_h2" });
  await t.http(runner, "POST", "/v1/sessions/iam_parent/cancel", { descendants: true });
  await t.http(human, "GET", "/v1/history?limit=5&action=accept");
  await t.http(undefined, "GET", "/healthz");
  const gone = await t.socket(runner);
  await gone.request({ action: "hello", sessions: [{ session_id: "iam_gone" }] });
  await gone.request({ action: "elicit", session_id: "iam_gone", elicitation_id: "iam_gone_el", params: { message: "gone?" } });
  gone.close();
  const expiring = await t.socket(await mintToken(SECRET, { sub: "iam-expiring", tenant: "acme", role: "runner" }, 60, t.clock.now()));
  await t.scheduled("gone-"); // a connection id may hold `-`, and then the name is hashed
  await t.scheduled("remind-");
  await t.elapse(300_000); // the reconnect grace; the token above expires; the reminder
  await expiring.request({ action: "ping" });
  await expiring.closed;
  // The runner-gone timer has resolved what nobody resumed.
  await eventually(async () => expect((await t.http(human, "GET", "/v1/elicitations/iam_gone_el")).body.verdict?.reason).toBe("runner_gone"));
  await sleep(500); // the stream settles
  await t.http(service, "DELETE", "/v1/notification-targets/iam");
}

it("calls only what the catalog (and so its IAM policy) allows, in every function", { timeout: 60_000 }, async () => {
  await everything();
  const used = new Map<FunctionName, Set<string>>();
  for (const call of calls) {
    const spec = functions[call.fn];
    for (const action of call.actions) {
      if (call.client === "DynamoDBClient") expect(spec.table as readonly DynamoAction[], `${call.fn} calls dynamodb:${action}`).toContain(action);
      else if (call.client === "SchedulerClient") {
        expect("scheduler" in spec, `${call.fn} calls scheduler ${action}`).toBe(true);
        if (action === "CreateSchedule") expect((spec as { scheduler?: readonly TimerName[] }).scheduler, `${call.fn} schedules ${call.timer}`).toContain(call.timer);
      } else if (call.client === "ApiGatewayManagementApiClient") {
        // The policy grants POST to `connections`, and POST and DELETE to `closesConnections` (an expired token's connection).
        if (action === "DeleteConnection") expect("closesConnections" in spec, `${call.fn} closes connections`).toBe(true);
        else expect("connections" in spec || "closesConnections" in spec, `${call.fn} posts to connections`).toBe(true);
        expect(["PostToConnection", "DeleteConnection"]).toContain(action);
      } else if (call.client === "SecretsManagerClient") expect(readsJwtSecret(spec)).toBe(true);
      else expect.fail(`${call.fn} uses an unexpected client ${call.client}`);
      used.set(call.fn, (used.get(call.fn) ?? new Set()).add(`${call.client}:${action}`));
    }
  }
  // Every function that has AWS actions in the catalog was exercised, so the check above means something.
  const withAws = (Object.keys(functions) as FunctionName[]).filter((name) => functions[name].table.length > 0);
  for (const name of withAws) expect(used.has(name), `${name} was not exercised`).toBe(true);
});

it("saw the calls it checks: each kind of client, and the transaction items of a raise", () => {
  const clients = new Set(calls.map((call) => call.client));
  expect([...clients].sort()).toEqual(["ApiGatewayManagementApiClient", "DynamoDBClient", "SchedulerClient"]);
  const raise = calls.find((call) => call.fn === "wsElicit" && call.command === "TransactWriteItemsCommand");
  expect(raise?.actions).toEqual(expect.arrayContaining(["PutItem", "UpdateItem"]));
});
