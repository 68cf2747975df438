/**
 * The park's one call: once a process has read a session and seen it tracked on a connection, an
 * `elicit` there is one transaction, which also makes the connection the session's runner. The
 * binding stays right when another connection took the session over in between, and the runner-gone
 * path still covers what each connection parked.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { scheduleName, timerKeys } from "../functions/domain/timers.js";
import { invocation } from "../local/lambda.js";
import { type AwsCall, observeAwsCalls } from "./support/aws-calls.js";
import { eventually, startTollgate, type Harness, type TestSocket } from "./support/tollgate.js";

let t: Harness;
const calls: AwsCall[] = [];
let stopObserving = () => {};
beforeAll(async () => {
  t = await startTollgate({ reconnectGraceSeconds: 1 });
  stopObserving = observeAwsCalls(t.runtime.clients, (call) => {
    if (invocation.getStore()?.functionName === "wsElicit") calls.push(call);
  });
});
afterAll(async () => {
  stopObserving();
  await t?.stop();
});

async function runnerSocket(sessionId: string): Promise<{ socket: TestSocket; id: string }> {
  const socket = await t.socket(await t.token("runner"));
  const hello = await socket.request({ action: "hello", sessions: [{ session_id: sessionId }] });
  expect(hello.type).toBe("hello.ok");
  return { socket, id: hello.connection_id };
}

/** What one `elicit` asked of AWS, by command. */
async function elicit(socket: TestSocket, sessionId: string, elicitationId: string) {
  calls.length = 0;
  const reply = await socket.request({ action: "elicit", session_id: sessionId, elicitation_id: elicitationId, params: { message: "go?" } });
  expect(reply.type, JSON.stringify(reply)).toBe("elicitation.parked");
  return calls.map((c) => c.command);
}

async function sessionRunner(sessionId: string) {
  const item = (await t.scan()).find((i: any) => i.pk.S === `T#acme#S#${sessionId}` && i.sk.S === "SESSION") as any;
  return item.runner_connection_id?.S as string | undefined;
}

it("reads the session at the first elicit of a process, then parks with one transaction", async () => {
  const a = await runnerSocket("park_one");
  expect(await elicit(a.socket, "park_one", "park_e1")).toEqual(["GetItemCommand", "TransactWriteItemsCommand"]);
  expect(await elicit(a.socket, "park_one", "park_e2")).toEqual(["TransactWriteItemsCommand"]);
  expect(await elicit(a.socket, "park_one", "park_e3")).toEqual(["TransactWriteItemsCommand"]);
  const session = await t.http(await t.token("human"), "GET", "/v1/sessions/park_one");
  expect(session.body.pending_elicitations_count).toBe(3);
});

it("binds the session to the connection that parks in it, even after another took it over unseen", async () => {
  const a = await runnerSocket("park_two");
  await elicit(a.socket, "park_two", "park_t1");
  expect(await sessionRunner("park_two")).toBe(a.id);
  // Another connection's hello makes itself the runner; this process's copy of the session does not know.
  const b = await runnerSocket("park_two");
  expect(await sessionRunner("park_two")).toBe(b.id);
  expect(await elicit(a.socket, "park_two", "park_t2")).toEqual(["TransactWriteItemsCommand"]);
  expect(await sessionRunner("park_two")).toBe(a.id);
});

it("tracks a session its hello never named on the connection that parks in it, and the grace then ends what it left", async () => {
  const a = await runnerSocket("park_three");
  const human = await t.token("human");
  expect((await t.http(await t.token("runner"), "PUT", "/v1/sessions/park_other", {})).status).toBe(200);
  // The session was read before (by this elicit's own first read), but this connection never tracked it.
  const b = await runnerSocket("park_other");
  expect(await elicit(b.socket, "park_other", "park_o1")).toEqual(["GetItemCommand", "TransactWriteItemsCommand"]);
  const commands = await elicit(a.socket, "park_other", "park_o2");
  expect(commands).toContain("UpdateItemCommand");
  expect(commands).not.toContain("GetItemCommand");
  a.socket.close();
  await t.scheduled(scheduleName("runnerGone", timerKeys.runnerGone("acme", a.id)));
  await t.elapse(1_500);
  await eventually(async () => expect((await t.http(human, "GET", "/v1/elicitations/park_o2")).body.verdict).toMatchObject({ action: "cancel", reason: "runner_gone" }));
  expect((await t.http(human, "GET", "/v1/elicitations/park_o1")).body.status).toBe("pending");
});
