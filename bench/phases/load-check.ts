/**
 * After the load: late duplicates (the stream's safety net) would show up now, and the badges come
 * down. Every verdict is counted per id on the raw frames; the server's own counts are read too.
 */
import type { BenchSocket, httpClient } from "../clients.js";
import { sleep } from "../clients.js";
import { now } from "../stats.js";
import type { Pending } from "./load.js";

/** How long the stream may take to bring every badge to where it should be: longer with more sessions. */
export const settleMs = (runners: number) => Math.max(60_000, runners * 12);

export interface LoadCheck {
  http: ReturnType<typeof httpClient>;
  humanToken: string;
  inbox: BenchSocket;
  runners: BenchSocket[];
  all: Map<string, Pending>;
  error: (what: string) => void;
  /** Whether the inbox's badge of every load session reads `n`. */
  sessionsAt: (n: number) => boolean;
}

/** Whether the server says every load session's count is 0 (`GET /v1/sessions?ids=`, 100 at a time). */
async function serverCountsZero(c: LoadCheck): Promise<boolean> {
  let zero = true;
  const N = c.runners.length;
  for (let i = 0; i < N; i += 100) {
    const ids = Array.from({ length: Math.min(100, N - i) }, (_, j) => `load_${i + j}`);
    const res = await c.http.call(c.humanToken, "GET", `/v1/sessions?ids=${ids.join(",")}`);
    if (res.status !== 200) c.error(`GET sessions?ids: HTTP ${res.status}`);
    for (const s of res.body?.sessions ?? []) if (s.pending_elicitations_count !== 0) zero = false;
  }
  return zero;
}

/** Load sessions `?pending=true` still lists (retried for 10 s: the list is an index). */
async function pendingListed(c: LoadCheck): Promise<number> {
  let listed = -1;
  for (let attempt = 0; attempt < 50; attempt++) {
    const res = await c.http.call(c.humanToken, "GET", `/v1/sessions?pending=true&limit=200`);
    listed = (res.body?.sessions ?? []).filter((s: { session_id: string }) => s.session_id.startsWith("load_")).length;
    if (listed === 0) break;
    await sleep(200);
  }
  return listed;
}

/** Nothing new at the inbox for this long: the stream has no backlog left for it. */
const DRAINED_MS = 30_000;
/** However long the stream's backlog keeps the inbox hearing, the check gives up after this long. */
const SETTLE_CAP_MS = 20 * 60_000;

/**
 * Wait until every inbox badge reads 0: at least `settleMs`, and for as long as the inbox still hears
 * events (the stream working off its backlog, which grows under a load the machine cannot keep up with).
 */
async function settle(c: LoadCheck): Promise<number> {
  const start = now();
  let heard = c.inbox.messages.received;
  let lastHeard = now();
  while (!c.sessionsAt(0) && now() - start < SETTLE_CAP_MS) {
    await sleep(100);
    if (c.inbox.messages.received !== heard) [heard, lastHeard] = [c.inbox.messages.received, now()];
    else if (now() - start > settleMs(c.runners.length) && now() - lastHeard > DRAINED_MS) break;
  }
  return (now() - start) / 1000;
}

export async function checkLoad(c: LoadCheck) {
  const settleSeconds = await settle(c);
  await sleep(2_000);
  const inboxAllZero = c.sessionsAt(0);
  const inboxNotAtZero = [...c.runners.keys()].filter((i) => c.inbox.badges.get(`load_${i}`) !== 0).length;
  const countsZero = await serverCountsZero(c);
  const listed = await pendingListed(c);
  let lost = 0;
  let doubled = 0;
  for (const p of c.all.values()) {
    const n = c.runners[p.runner].verdicts.get(p.id)?.length ?? 0;
    if (n === 0) lost++;
    if (n > 1) doubled += n - 1;
  }
  for (const [i, r] of c.runners.entries()) {
    if (r.errors.length) c.error(`runner ${i}: error frames ${JSON.stringify(r.errors.slice(0, 2))}`);
    if (r.closedUnexpectedly) c.error(`runner ${i}: connection closed`);
  }
  if (c.inbox.errors.length || c.inbox.closedUnexpectedly) c.error(`inbox: ${JSON.stringify(c.inbox.errors.slice(0, 2))} closed=${c.inbox.closedUnexpectedly}`);
  return {
    lost,
    doubled,
    badgesExact: inboxAllZero && countsZero && listed === 0,
    badges: { inboxAllZero, inboxNotAtZero, settleSeconds: Math.round(settleSeconds), serverCountsZero: countsZero, pendingListed: listed },
  };
}
