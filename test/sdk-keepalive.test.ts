/**
 * A network that goes silent closes nothing: the runner notices by its pings, replaces the
 * connection, and the verdict given meanwhile still ends its wait, once.
 */
import { createConnection, createServer, type AddressInfo, type Socket } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTollgate, type Harness } from "./support/tollgate.js";

/** The machine may be busy: allow views that follow a write some seconds. */
const POLL = { timeout: 15_000 };
let t: Harness;
beforeAll(async () => {
  t = await startTollgate();
});
afterAll(() => t?.stop());

/** A TCP relay to the runtime that can make the connections it carries go silent, as a dead network does: no data, no close. */
async function silencingRelay(target: URL) {
  const carried: { silent: boolean; sockets: Socket[] }[] = [];
  const server = createServer((client) => {
    const upstream = createConnection({ host: target.hostname, port: Number(target.port) });
    const pair = { silent: false, sockets: [client, upstream] };
    carried.push(pair);
    client.on("data", (data) => pair.silent || upstream.write(data));
    upstream.on("data", (data) => pair.silent || client.write(data));
    for (const [a, b] of [
      [client, upstream],
      [upstream, client],
    ]) {
      a.on("error", () => b.destroy());
      a.on("close", () => pair.silent || b.destroy());
    }
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}${target.pathname}`,
    silenceAll: () => {
      for (const pair of carried) pair.silent = true;
    },
    close: () => {
      for (const pair of carried) for (const s of pair.sockets) s.destroy();
      server.close();
    },
  };
}

it("replaces a connection that went silent and gets the verdict given meanwhile, once", async () => {
  const relay = await silencingRelay(new URL(t.runtime.wsUrl));
  try {
    const runner = await t.runner({ url: relay.url, sessions: [{ session_id: "keep_s" }], pingEveryMs: 300 });
    const wait = runner.elicit({ sessionId: "keep_s", elicitationId: "keep_el", params: { message: "still there?" } });
    const human = await t.token("human");
    await expect.poll(async () => (await t.http(human, "GET", "/v1/elicitations/keep_el")).body?.status, POLL).toBe("pending");
    const first = runner.connectionId;
    relay.silenceAll();
    await t.http(human, "POST", "/v1/sessions/keep_s/events", { type: "approval", elicitation_id: "keep_el", action: "accept" });
    await expect(wait).resolves.toMatchObject({ elicitation_id: "keep_el", action: "accept", reason: "answered" });
    expect(runner.connectionId).not.toBe(first);
  } finally {
    relay.close();
  }
});
