/**
 * Notice delivery that fails, and resolutions racing the delivery. The domain is built
 * here over the runtime's real DynamoDB Local, `@connections` and Scheduler stand-ins, with the
 * pusher wrapped to fail or stall on purpose; the runtime's own grace is too long to interfere.
 */
import { GetScheduleCommand, SchedulerClient } from "@aws-sdk/client-scheduler";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Pusher } from "../functions/domain/push.js";
import { scheduleName, timerKeys } from "../functions/domain/timers.js";
import { domainOver } from "./support/domain.js";
import { sleep, startTollgate, type Harness, type TestSocket } from "./support/tollgate.js";

let t: Harness;
let human: string;
let runner: string;
const credentials = { accessKeyId: "local", secretAccessKey: "local" };

beforeAll(async () => {
  t = await startTollgate({ escalationGraceSeconds: 3_600 });
  human = await t.token("human");
  runner = await t.token("runner");
});
afterAll(() => t?.stop());

/** The domain over the real stand-ins, with `push` decorated by the test. */
const domainWith = (decorate: (real: Pusher) => Pusher) => domainOver(t, { push: decorate, config: { noticeRetryDelayMs: 20 } });

/** A pusher whose pushes of notices fail `times` times (then work), or stall for a random moment. */
function noticeFaults(real: Pusher, options: { failures?: number; stallMs?: number }): Pusher & { attempts: number } {
  let failures = options.failures ?? 0;
  const pusher = {
    attempts: 0,
    async send(connectionId: string, frame: object) {
      if ((frame as { kind?: string }).kind === "notice") {
        pusher.attempts++;
        if (failures-- > 0) throw new Error("connection reset");
        if (options.stallMs) await sleep(Math.random() * options.stallMs);
      }
      return real.send(connectionId, frame);
    },
  };
  return pusher;
}

const noticesAt = (socket: TestSocket) => socket.frames.filter((f) => f.type === "session.message" && f.kind === "notice");

async function block(name: string) {
  const parent = await t.socket(runner);
  await parent.request({ action: "hello", sessions: [{ session_id: `${name}_p` }] });
  const child = await t.socket(runner);
  await child.request({ action: "hello", sessions: [{ session_id: `${name}_c`, parent_session_id: `${name}_p` }] });
  const params = { message: `blocked ${name}` };
  await child.request({ action: "elicit", session_id: `${name}_c`, elicitation_id: `${name}_el`, params });
  return { parent, child, params, id: `${name}_el`, childId: `${name}_c` };
}

it("delivers one notice when the first two attempts fail", async () => {
  const b = await block("fail2");
  let pusher!: ReturnType<typeof noticeFaults>;
  const tollgate = domainWith((real) => (pusher = noticeFaults(real, { failures: 2 })));
  await tollgate.escalation.fire("acme", b.id, 1);
  await b.parent.next((f) => f.kind === "notice");
  await sleep(300);
  expect(pusher.attempts).toBe(3);
  expect(noticesAt(b.parent)).toHaveLength(1);
  const item = await tollgate.elicitations.find("acme", b.id);
  expect(item?.block_state).toBe("delivered");
});

it("gives up after three failed attempts, and a re-publish of the same request tries again", async () => {
  const b = await block("failall");
  let attempts = 0;
  const broken = domainWith(() => ({
    async send() {
      attempts++;
      throw new Error("unreachable");
    },
  }));
  await broken.escalation.fire("acme", b.id, 1);
  expect(attempts).toBe(3);
  expect(noticesAt(b.parent)).toHaveLength(0);
  expect((await broken.elicitations.find("acme", b.id))?.block_state).toBe("released");

  // The runner publishes the same request again: the block is armed for a second round.
  const again = await b.child.request({ action: "elicit", session_id: b.childId, elicitation_id: b.id, params: b.params });
  expect(again.type).toBe("elicitation.parked");
  const working = domainWith((real) => real);
  expect(await working.elicitations.find("acme", b.id)).toMatchObject({ block_state: "armed", block_round: 2 });
  // The stream armed a second-round schedule for it.
  const scheduler = new SchedulerClient({ endpoint: t.runtime.httpUrl, region: "us-east-1", credentials });
  const second = scheduleName("escalation", timerKeys.escalation({ tenant: "acme", elicitation_id: b.id, block_round: 2 }));
  await expect
    .poll(() =>
      scheduler.send(new GetScheduleCommand({ Name: second, GroupName: "tollgate" })).then(
        (s) => s.Name,
        () => undefined,
      ),
    )
    .toBe(second);
  scheduler.destroy();
  await working.escalation.fire("acme", b.id, 1); // the first round's schedule, late: nothing
  await working.escalation.fire("acme", b.id, 2);
  await b.parent.next((f) => f.kind === "notice");
  await sleep(300);
  expect(noticesAt(b.parent)).toHaveLength(1);
});

it("never sends a block notice without its resolution notice when the resolution races the delivery (50 times)", { timeout: 120_000 }, async () => {
  const parent = await t.socket(runner);
  await parent.request({ action: "hello", sessions: [{ session_id: "race_p" }] });
  const child = await t.socket(runner);
  await child.request({ action: "hello", sessions: [{ session_id: "race_c", parent_session_id: "race_p" }] });
  const tollgate = domainWith((real) => noticeFaults(real, { stallMs: 30 }));
  const outcomes = { both: 0, none: 0 };
  for (let i = 0; i < 50; i++) {
    const id = `race_el_${i}`;
    await child.request({ action: "elicit", session_id: "race_c", elicitation_id: id, params: { message: `race ${i}` } });
    const before = noticesAt(parent).length;
    // From the verdict 60 ms ahead of the fire to 200 ms behind it: how long each side takes moves with
    // the machine's load, and the sweep spans both sides of where they cross on a quiet or a busy one.
    const offset = -60 + (260 * i) / 49;
    await Promise.all([
      sleep(Math.max(0, -offset)).then(() => tollgate.escalation.fire("acme", id, 1)),
      sleep(Math.max(0, offset)).then(() => t.http(human, "POST", "/v1/sessions/race_c/events", { type: "approval", elicitation_id: id, action: "accept" })),
    ]);
    // Wait for the stream to settle this block: its state leaves `armed`/`delivering`/`delivered`.
    await expect.poll(async () => (await tollgate.elicitations.find("acme", id))?.block_state, { timeout: 5_000 }).toMatch(/^(cleared|settled)$/);
    // `settled` is claimed before the resolution notice goes out: give it the moment to arrive.
    const mine = () => noticesAt(parent).slice(before);
    const blocksIn = (list: any[]) => list.filter((n) => n.text.includes("is blocked"));
    const resolutionsIn = (list: any[]) => list.filter((n) => n.text.includes("approval was resolved"));
    await expect.poll(() => blocksIn(mine()).length - resolutionsIn(mine()).length, { timeout: 5_000 }).toBe(0);
    await sleep(50);
    const blocks = blocksIn(mine());
    const resolutions = resolutionsIn(mine());
    expect(blocks.length, id).toBe(resolutions.length);
    expect(blocks.length, id).toBeLessThanOrEqual(1);
    if (blocks.length === 1) expect(mine().indexOf(blocks[0]), id).toBeLessThan(mine().indexOf(resolutions[0]));
    outcomes[blocks.length === 1 ? "both" : "none"]++;
  }
  // Both interleavings happened: the race was real.
  expect(outcomes.both).toBeGreaterThan(0);
  expect(outcomes.none).toBeGreaterThan(0);
});
