/** Round trip and park: one SDK runner, one human over HTTP, one verdict at a time. */
import { TollgateRunner } from "../../sdk/runner.js";
import { sleep, withTimeout, type httpClient } from "../clients.js";
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

export async function roundTripPhase(o: RoundTripOptions) {
  const runner = new TollgateRunner({ url: o.wsUrl, token: o.runnerToken, sessions: [{ session_id: o.session }] });
  await runner.connect();
  const park: number[] = [];
  const roundTrip: number[] = [];
  const httpReply: number[] = [];
  let errors = 0;
  for (let i = 0; i < o.count; i++) {
    const id = `${o.session}_${i}`;
    let onParked!: () => void;
    const parkedAt = new Promise<number>((r) => (onParked = () => r(now())));
    const t0 = now();
    const verdict = runner.elicit({ sessionId: o.session, elicitationId: id, params: { message: `Approve bench step ${i}?` }, onParked }).then((v) => ({ v, at: now() }));
    try {
      park.push((await withTimeout(parkedAt, 10_000, "park")) - t0);
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
