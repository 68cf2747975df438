/**
 * Badge push beside a webhook target whose receiver hangs (accepts the connection, reads the request,
 * never answers): the same badge measurement on two sessions of the same run, one that a hanging
 * target hears of and one that no target hears of, in alternating blocks (each side first in turn) so
 * that drift over the run falls on both alike. Every raise and cancel of the first session leaves a delivery attempt hanging
 * until the runtime's notify timeout, and retries after it. It runs last: the attempts that wait out a
 * longer pause fire after the target is gone, and would otherwise fall into a later phase.
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { mintToken } from "../../local/tokens.js";
import { sleep, type httpClient } from "../clients.js";
import { SECRET, TENANT } from "../config.js";
import { ratio, summarize } from "../stats.js";
import { badgePhase } from "./badge.js";

const TARGET = "bench-hanging";
const HANGING_SESSION = "bench_badge_hanging_target";
const PLAIN_SESSION = "bench_badge_no_target";
/** The first retry's pause (5 s) plus its jitter and a margin: no attempt is left to fire after it. */
const DRAIN_MS = 7_000;

/** A receiver that never answers: it counts the requests and holds each one open until it closes. */
async function hangingReceiver() {
  const held: IncomingMessage[] = [];
  const server = createServer((req) => {
    held.push(req);
    req.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hangs`,
    requests: () => held.length,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface HangingTargetOptions {
  wsUrl: string;
  http: ReturnType<typeof httpClient>;
  runnerToken: string;
  humanToken: string;
  /** Raises measured on each session. */
  count: number;
  thinkMs: number;
  /** Alternating blocks per session. */
  blocks: number;
}

export async function hangingTargetPhase(o: HangingTargetOptions) {
  const receiver = await hangingReceiver();
  const service = await mintToken(SECRET, { sub: "bench-service", tenant: TENANT, role: "service" });
  const created = await o.http.call(service, "PUT", `/v1/notification-targets/${TARGET}`, { kind: "webhook", url: receiver.url, sessions: [HANGING_SESSION] });
  if (created.status !== 201 && created.status !== 200) throw new Error(`notification target: ${JSON.stringify(created)}`);
  const samples = { with: [] as number[], without: [] as number[] };
  const blockP50s = { with: [] as number[], without: [] as number[] };
  let errors = 0;
  try {
    const per = Math.max(1, Math.ceil(o.count / o.blocks));
    const pair = [
      ["without", PLAIN_SESSION],
      ["with", HANGING_SESSION],
    ] as const;
    for (let done = 0, block = 0; done < o.count; done += per, block++) {
      const n = Math.min(per, o.count - done);
      // The sides take turns going first: a block's first raises (fresh sockets) are no one side's burden.
      for (const [kind, session] of block % 2 === 0 ? pair : [...pair].reverse()) {
        const b = await badgePhase(o.wsUrl, o.runnerToken, o.humanToken, n, o.thinkMs, session, done);
        samples[kind].push(...b.raised);
        blockP50s[kind].push(summarize(b.raised).p50);
        errors += b.errors;
      }
    }
    // Every raise and every cancel of the target's session leaves one attempt hanging, the last ones too.
    const deadline = Date.now() + 30_000;
    while (receiver.requests() < 2 * o.count && Date.now() < deadline) await sleep(100);
  } finally {
    await o.http.call(service, "DELETE", `/v1/notification-targets/${TARGET}`);
  }
  const hangingRequests = receiver.requests();
  // Closing fails every hanging attempt at once; their retries (5 s ±20% by default) find the target gone.
  await receiver.close();
  await sleep(DRAIN_MS);
  const [withTarget, without] = [summarize(samples.with), summarize(samples.without)];
  return {
    samples,
    figures: {
      badgeWithoutTarget: without,
      badgeWithHangingTarget: withTarget,
      badgeWithHangingTargetVsWithout: { p50: ratio(withTarget.p50, without.p50), p99: ratio(withTarget.p99, without.p99) },
      /** Each block's p50: the spread of the blocks without a target is this run's own noise. */
      blockP50s,
      hangingRequests,
      errors,
    },
  };
}
