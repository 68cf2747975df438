/**
 * 200 elicitations over 20 runners while connections are cut at random and every stream
 * batch and schedule is delivered twice: each wait ends exactly once with the standing verdict,
 * and every badge ends at 0.
 */
import { ApiGatewayManagementApiClient, DeleteConnectionCommand } from "@aws-sdk/client-apigatewaymanagementapi";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { TollgateRunner, Verdict } from "../sdk/runner.js";
import { eventually, sleep, startTollgate, type Harness } from "./support/tollgate.js";

let t: Harness;
// The grace is long enough that a reconnect delayed by a loaded machine still resumes: this test is about exactly-once, not the grace.
// Its own DynamoDB Local: the shared one slows with every stream-enabled table the earlier files left in it.
beforeAll(async () => (t = await startTollgate({ reconnectGraceSeconds: 60, redeliver: true, dynamoEndpoint: undefined })));
afterAll(() => t?.stop());

const RUNNERS = 20;
const PER_RUNNER = 10;

it("keeps every verdict exact under disconnects and duplicate deliveries", { timeout: 240_000 }, async () => {
  const human = await t.token("human", "chaos_human");
  const inbox = await t.socket(human);
  await inbox.request({ action: "subscribe", sessions: "*" });
  const connections = new ApiGatewayManagementApiClient({ endpoint: t.runtime.httpUrl, region: "us-east-1", credentials: { accessKeyId: "local", secretAccessKey: "local" } });

  const runners: TollgateRunner[] = [];
  for (let r = 0; r < RUNNERS; r++) runners.push(await t.runner({ sub: `chaos_runner_${r}`, sessions: [{ session_id: `conv_chaos_${r}` }] }));
  const humans = await Promise.all(Array.from({ length: 20 }, (_, h) => t.token("human", `chaos_human_${h}`)));

  // Cut random runners' connections through the real @connections API while the run goes on.
  let cutting = true;
  const cutter = (async () => {
    while (cutting) {
      const victim = runners[Math.floor(Math.random() * RUNNERS)];
      if (victim.connectionId) await connections.send(new DeleteConnectionCommand({ ConnectionId: victim.connectionId })).catch(() => undefined);
      await sleep(250);
    }
  })();

  const outcomes = new Map<string, { settled: number; verdict?: Verdict; aborted?: boolean }>();
  const waits: Promise<unknown>[] = [];
  for (let r = 0; r < RUNNERS; r++) {
    for (let i = 0; i < PER_RUNNER; i++) {
      const id = `el_chaos_${r}_${i}`;
      const kind = i % 5; // 0: deadline, 1: runner abort, else answered by a human
      const abort = new AbortController();
      outcomes.set(id, { settled: 0 });
      waits.push(
        runners[r].elicit({ sessionId: `conv_chaos_${r}`, elicitationId: id, params: { message: `chaos ${id}` }, timeoutSeconds: kind === 0 ? 1 : 60, signal: abort.signal }).then(
          (verdict) => Object.assign(outcomes.get(id)!, { settled: outcomes.get(id)!.settled + 1, verdict }),
          (error: Error) => {
            expect(`${error.name}: ${(error as { code?: string }).code ?? ""} ${error.message}`).toMatch(/^AbortError/);
            Object.assign(outcomes.get(id)!, { settled: outcomes.get(id)!.settled + 1, aborted: true });
          },
        ),
      );
      if (kind === 1) setTimeout(() => abort.abort(), 200 + Math.random() * 500);
    }
  }

  // Twenty humans answer what is pending, some of them twice.
  const answerable = [...outcomes.keys()].filter((id) => Number(id.split("_").at(-1)) % 5 >= 2);
  await Promise.all(
    Array.from({ length: 20 }, async (_, h) => {
      for (const id of answerable.filter((_, k) => k % 20 === h)) {
        const session = `conv_chaos_${id.split("_")[2]}`;
        const body = { type: "approval", elicitation_id: id, action: Math.random() < 0.5 ? "accept" : "decline" };
        await eventually(async () => expect((await t.http(human, "GET", `/v1/elicitations/${id}`)).status).toBe(200), 60_000);
        const first = await t.http(humans[h], "POST", `/v1/sessions/${session}/events`, body);
        expect([200, 409]).toContain(first.status);
        if (Math.random() < 0.3) expect([200, 409]).toContain((await t.http(humans[h], "POST", `/v1/sessions/${session}/events`, body)).status);
      }
    }),
  );

  // Bounded: a wait that never ends is reported with its server-side state rather than a bare timeout.
  const allSettled = await Promise.race([Promise.all(waits).then(() => true), sleep(120_000).then(() => false)]);
  cutting = false;
  if (!allSettled) {
    const stuck = [...outcomes].filter(([, o]) => o.settled === 0).map(([id]) => id);
    const states = await Promise.all(stuck.slice(0, 5).map(async (id) => [id, (await t.http(human, "GET", `/v1/elicitations/${id}`)).body]));
    expect.fail(`${stuck.length} waits never ended, e.g. ${JSON.stringify(states)}`);
  }
  await cutter;
  connections.destroy();

  for (const [id, outcome] of outcomes) {
    expect(outcome.settled, id).toBe(1);
    const standing = (await t.http(human, "GET", `/v1/elicitations/${id}`)).body;
    expect(standing.status, id).toBe("resolved");
    if (outcome.verdict) expect(outcome.verdict.action, id).toBe(standing.verdict.action);
    else expect(standing.verdict.action, id).toBe("cancel");
    expect(standing.verdict.reason, id).not.toBe("runner_gone");
  }
  for (let r = 0; r < RUNNERS; r++) expect((await t.http(human, "GET", `/v1/sessions/conv_chaos_${r}`)).body.pending_elicitations_count).toBe(0);
  await eventually(() => {
    for (let r = 0; r < RUNNERS; r++) {
      const badges = inbox.frames.filter((f) => f.type === "session.badge" && f.session_id === `conv_chaos_${r}`);
      expect(badges.at(-1)?.pending_elicitations_count).toBe(0);
    }
  });
  const resolvedIds = inbox.frames.filter((f) => f.type === "response.elicitation_resolved").map((f) => f.elicitation_id);
  expect(new Set(resolvedIds).size).toBe(RUNNERS * PER_RUNNER);
});
