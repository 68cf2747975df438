/**
 * A delivery's connection goes only to an address the rule allows, as the name resolves for that very
 * connection: a name that answers an allowed address to one lookup and a private one to the next (DNS
 * rebinding) never reaches the private one. Real sockets on two loopback addresses stand for the
 * public receiver (127.0.0.2, allowed here) and the private service behind it (127.0.0.1, a trap
 * counting connections); the resolver is the test's, as a clock is.
 */
import { createServer as createTcpServer, type AddressInfo, type Server } from "node:net";
import { createServer, type Server as HttpServer } from "node:http";
import { afterAll, beforeAll, expect, it } from "vitest";
import { post } from "../../functions/domain/notify/post.js";
import { readConfig } from "../../functions/shared/config.js";
import { domainOver } from "../support/domain.js";
import { eventually, startTollgate, type Harness } from "../support/tollgate.js";

const listen = (server: Server | HttpServer, host: string, port = 0) =>
  new Promise<number>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });

let t: Harness;
let port: number;
let received = 0;
let trapped = 0;
const receiver = createServer((req, res) => {
  received += 1;
  req.resume();
  res.writeHead(204).end();
});
const trap = createTcpServer((socket) => {
  trapped += 1;
  socket.destroy();
});

beforeAll(async () => {
  // The same port on both addresses, so only the address the connection dials decides where it lands.
  for (;;) {
    port = await listen(receiver, "127.0.0.2");
    if (
      await listen(trap, "127.0.0.1", port).then(
        () => true,
        () => false,
      )
    )
      break;
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  }
  t = await startTollgate();
});
afterAll(async () => {
  await t?.stop();
  receiver.close();
  trap.close();
});

const refused = { error: expect.stringMatching(/^refused: /) };
const notLoopbackOne = (address: string) => address !== "127.0.0.1";
/** Answers the allowed address and the trap's in turn, one a lookup. */
function rebinding() {
  let lookups = 0;
  return { resolve: async () => [lookups++ % 2 === 0 ? "127.0.0.2" : "127.0.0.1"], lookups: () => lookups };
}

it("dials the address it checked: a name that changes its answer between lookups never reaches the private one", async () => {
  const dns = rebinding();
  const before = { received, trapped };
  const results = [];
  for (let i = 0; i < 4; i++) results.push(await post(new URL(`http://hooks.example.test:${port}/hook`), {}, "{}", { resolve: dns.resolve, allowed: notLoopbackOne, timeoutMs: 5_000 }));
  // Each connection looked the name up once; the two that got the private answer were refused before dialling.
  expect(dns.lookups()).toBe(4);
  expect(results.filter((r) => "status" in r)).toEqual([{ status: 204 }, { status: 204 }]);
  expect(results.filter((r) => "error" in r)).toEqual([refused, refused]);
  expect(received - before.received).toBe(2);
  expect(trapped - before.trapped).toBe(0);
});

it("refuses an answer with any private address in it, and a private literal, without dialling", async () => {
  const before = { received, trapped };
  const both = await post(new URL(`http://hooks.example.test:${port}/hook`), {}, "{}", { resolve: async () => ["127.0.0.2", "127.0.0.1"], allowed: notLoopbackOne, timeoutMs: 5_000 });
  const literal = await post(new URL(`http://127.0.0.1:${port}/hook`), {}, "{}", { resolve: async () => [], allowed: notLoopbackOne, timeoutMs: 5_000 });
  expect([both, literal]).toEqual([refused, refused]);
  expect({ received: received - before.received, trapped: trapped - before.trapped }).toEqual({ received: 0, trapped: 0 });
});

it("in the cloud, a target whose name comes to resolve to a private address records the refusal, and nothing reaches it", async () => {
  let answer = "93.184.216.34";
  const cloud = domainOver(t, {
    config: { notify: { ...readConfig(process.env).notify, local: false } },
    resolve: async () => [answer],
    // The attempt is run below by hand, as its schedule's handler would.
    timers: (real) => ({ ...real, schedule: async () => {} }),
  });
  const service = { sub: "svc", tenant: "acme", role: "service" as const };
  await cloud.targets.put(service, "rebind", { kind: "webhook", url: `https://hooks.example.test:${port}/hook`, events: ["elicitation.escalated"] });
  const runner = await t.token("runner");
  await t.http(runner, "PUT", "/v1/sessions/conv_rebind", {});
  expect((await t.http(runner, "POST", "/v1/sessions/conv_rebind/events", { type: "response.elicitation_request", elicitation_id: "el_rebind", params: { message: "ship?" } })).status).toBe(201);
  const item = (await cloud.ctx.db.elicitations.get("acme", "el_rebind"))!;
  await cloud.notifications.escalated(item);
  answer = "127.0.0.1";
  const before = trapped;
  await cloud.notifications.attempt("acme", "rebind", "el_rebind.escalated.1", 1);
  const serviceToken = await t.token("service");
  await eventually(async () => {
    const target = (await t.http(serviceToken, "GET", "/v1/notification-targets/rebind")).body;
    expect(target.last_attempts?.[0]).toMatchObject({ event_id: "el_rebind.escalated.1", error: expect.stringMatching(/^refused: /) });
  });
  expect(trapped - before).toBe(0);
});
