/** Badge push: a runner raises, an inbox subscriber hears `session.badge` (through the stream). */
import { BenchSocket, sleep, withTimeout } from "../clients.js";
import { log } from "../config.js";
import { now } from "../stats.js";

/** A subscriber of `session`'s badge: `badge(n)` resolves when the badge next reads n. */
async function badgeWatcher(wsUrl: string, humanToken: string, session: string) {
  const inbox = await BenchSocket.open(wsUrl, humanToken);
  const subscribed = await inbox.request({ action: "subscribe", sessions: [session] });
  if (subscribed.reply.type !== "subscribed") throw new Error(`subscribe: ${JSON.stringify(subscribed.reply)}`);
  let waiter: { count: number; resolve: (at: number) => void } | undefined;
  inbox.onFrame = (frame, at) => {
    if (frame.type === "session.badge" && frame.session_id === session && waiter && frame.pending_elicitations_count === waiter.count) waiter.resolve(at);
  };
  const badge = (expected: number) => new Promise<number>((resolve) => (waiter = { count: expected, resolve }));
  return { inbox, badge };
}

export async function badgePhase(wsUrl: string, runnerToken: string, humanToken: string, count: number, thinkMs: number, session = "bench_badge", first = 0) {
  const runner = await BenchSocket.open(wsUrl, runnerToken);
  await runner.request({ action: "hello", sessions: [{ session_id: session }] });
  const { inbox, badge } = await badgeWatcher(wsUrl, humanToken, session);
  const raised: number[] = [];
  const resolved: number[] = [];
  let errors = 0;
  const failed = (i: number, error: unknown) => {
    errors++;
    log(`badge ${i}: ${(error as Error).message}`);
  };
  for (let i = first; i < first + count; i++) {
    const id = `${session}_${i}`;
    let parked = false;
    try {
      const up = badge(1);
      const t0 = now();
      const { reply } = await runner.request({ action: "elicit", session_id: session, elicitation_id: id, params: { message: `Badge ${i}?` } });
      if (reply.type !== "elicitation.parked") throw new Error(JSON.stringify(reply));
      parked = true;
      raised.push((await withTimeout(up, 10_000, "badge up")) - t0);
      if (thinkMs > 0) await sleep(thinkMs);
    } catch (error) {
      failed(i, error);
    }
    // Cancelled even when its badge came late, so the session's count is back at 0 for the next raise.
    if (!parked) continue;
    try {
      const down = badge(0);
      const t1 = now();
      const cancelled = await runner.request({ action: "cancel", elicitation_id: id });
      if (cancelled.reply.type !== "elicitation.verdict") throw new Error(JSON.stringify(cancelled.reply));
      resolved.push((await withTimeout(down, 10_000, "badge down")) - t1);
      if (thinkMs > 0) await sleep(thinkMs);
    } catch (error) {
      failed(i, error);
    }
  }
  runner.close();
  inbox.close();
  return { raised, resolved, errors };
}
