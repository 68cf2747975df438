/** Round trip and park: one SDK runner, one human over HTTP, one verdict at a time. */
import { TollgateRunner } from "../../sdk/runner.js";
import { sleep, withTimeout, type Frame, type httpClient } from "../clients.js";
import { log } from "../config.js";
import { now } from "../stats.js";

export interface RoundTripOptions {
  wsUrl: string;
  http: ReturnType<typeof httpClient>;
  runnerToken: string;
  humanToken: string;
  count: number;
  session: string;
  thinkMs: number;
}

/**
 * The moments `elicitation.parked` arrives, by elicitation id: the SDK does not surface that frame, so
 * its frame handler is wrapped (the frame's text is its last argument).
 */
export function watchParked(runner: TollgateRunner): Map<string, (at: number) => void> {
  const parked = new Map<string, (at: number) => void>();
  const sdk = runner as unknown as { receive(...args: unknown[]): void };
  const receive = sdk.receive.bind(runner);
  sdk.receive = (...args: unknown[]) => {
    const at = now();
    const text = args.at(-1);
    if (typeof text === "string" && text.includes('"elicitation.parked"')) {
      const frame = JSON.parse(text) as Frame;
      parked.get(frame.elicitation_id)?.(at);
    }
    receive(...args);
  };
  return parked;
}

export async function roundTripPhase(o: RoundTripOptions) {
  const runner = new TollgateRunner({ url: o.wsUrl, token: o.runnerToken, sessions: [{ session_id: o.session }] });
  await runner.connect();
  const parked = watchParked(runner);
  const park: number[] = [];
  const roundTrip: number[] = [];
  const httpReply: number[] = [];
  let errors = 0;
  for (let i = 0; i < o.count; i++) {
    const id = `${o.session}_${i}`;
    const parkedAt = new Promise<number>((r) => parked.set(id, r));
    const t0 = now();
    const verdict = runner.elicit({ sessionId: o.session, elicitationId: id, params: { message: `Approve bench step ${i}?` } }).then((v) => ({ v, at: now() }));
    try {
      park.push((await withTimeout(parkedAt, 10_000, "park")) - t0);
      parked.delete(id);
      if (o.thinkMs > 0) await sleep(o.thinkMs);
      const t1 = now();
      const answered = o.http.call(o.humanToken, "POST", `/v1/sessions/${o.session}/events`, { type: "approval", elicitation_id: id, action: "accept" }).then((r) => ({ r, at: now() }));
      const [{ r, at: repliedAt }, { v, at }] = await withTimeout(Promise.all([answered, verdict]), 10_000, "verdict");
      if (r.status !== 200 || v.action !== "accept") errors++;
      roundTrip.push(at - t1);
      httpReply.push(repliedAt - t1);
      if (o.thinkMs > 0) await sleep(o.thinkMs);
    } catch (error) {
      errors++;
      log(`round trip ${i}: ${(error as Error).message}`);
    }
  }
  runner.close();
  return { park, roundTrip, httpReply, errors };
}
