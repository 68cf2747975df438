/**
 * Delivering events to notification targets, at least once, without ever holding Tollgate up: the
 * stream only records one delivery per target and event and schedules its first attempt; each
 * attempt runs in its own schedule's invocation, with a timeout, and schedules the next one (with
 * exponential backoff and jitter) when it fails. A delivery that used every retry (a little more
 * than a day by default) disables its target, which then says why.
 */
import { createHash, createHmac } from "node:crypto";
import type { Context } from "../context.js";
import type { ElicitationItem } from "../items.js";
import type { Links } from "../links.js";
import type { AttemptRecord, DeliveryItem, TargetItem, TargetRecord } from "../stores/targets.js";
import { timerKeys } from "../timers.js";
import { knownTargets } from "./known-targets.js";
import { slackBody, webhookBody, type NotificationSubject } from "./payloads.js";
import { post } from "./post.js";
import { isNonPublic } from "./urls.js";

const KEPT_ATTEMPTS = 5;
/** Deliveries stay readable for a week after their event. */
const DELIVERY_RETENTION_SECONDS = 7 * 86_400;
/** A schedule's first attempt runs a moment later: Scheduler refuses a time that has passed. */
const FIRST_ATTEMPT_MS = 1_000;

/** Standard Webhooks: `v1,` and the base64 HMAC-SHA256, keyed by the secret's bytes, of `id.timestamp.body`. */
export function signature(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  return `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64")}`;
}

const webhookId = (tenant: string, targetId: string, eventId: string) => `msg_${createHash("sha256").update(`${tenant}\n${targetId}\n${eventId}`).digest("hex").slice(0, 32)}`;

/** The target wants this event: its kind, its sessions (a session or any ancestor named), and not disabled. */
export function wants(target: TargetItem, subject: NotificationSubject): boolean {
  if (target.disabled_reason || !target.events.includes(subject.type)) return false;
  if (!target.sessions) return true;
  const lineage = [subject.item.session_id, ...(subject.item.ancestors ?? [])];
  return lineage.some((s) => target.sessions!.includes(s));
}

/** A receiver's answer that counts as delivered: any 2xx (a redirect is not followed). */
const delivered = (status: number | undefined) => status !== undefined && status >= 200 && status < 300;

/** An outcome the target's item does not show yet: a failure while it is not failing, a success after a failure. */
const changes = (target: TargetRecord, ok: boolean) => (ok ? target.failing_since !== undefined || !delivered(target.last_attempts?.[0]?.status) : target.failing_since === undefined);

/** Full jitter around the configured pause: between 80% and 120% of it. */
const jittered = (ms: number) => Math.round(ms * (0.8 + Math.random() * 0.4));

export function createDeliveries(ctx: Context, links: Links) {
  const store = ctx.db.targets;
  const known = knownTargets(store, ctx.now, ctx.config.notify.targetsKeptMs);

  async function scheduleAttempt(d: Pick<DeliveryItem, "tenant" | "target_id" | "event_id">, attempt: number, at: number, afterLease?: number) {
    const input = { tenant: d.tenant, target_id: d.target_id, event_id: d.event_id, attempt };
    await ctx.timers.schedule("notify", timerKeys.notify(d.tenant, d.target_id, d.event_id, attempt, afterLease), new Date(at), input);
  }

  /**
   * An attempt is claimed and has not ended: another firing runs it, or a runtime stopped halfway
   * through it. Its own schedule looks again once the claim's lease is over (a takeover when it was
   * abandoned, nothing when it ended), however soon or late the invoker would retry a failure.
   */
  async function lookAgainAfterLease(tenant: string, targetId: string, eventId: string, n: number) {
    const d = await store.findDelivery(tenant, targetId, eventId);
    if (!d || d.done || d.ended >= n || d.attempt <= d.ended) return;
    const leaseUntil = d.lease_until ?? ctx.now();
    await scheduleAttempt(d, d.attempt, Math.max(leaseUntil, ctx.now()) + FIRST_ATTEMPT_MS, leaseUntil);
  }

  /**
   * Record the event for every target that wants it and schedule each first attempt (safe to repeat).
   * `among`: the targets to consider, when already read; absent, all of the tenant's. Resolves with them.
   */
  async function fanOut(subject: NotificationSubject, among?: TargetItem[]): Promise<TargetItem[]> {
    const { tenant } = subject.item;
    const all = among ?? (await known.list(tenant));
    // Slack shows the session's title: read once per event, and only when a Slack target wants it.
    let title: Promise<string | undefined> | undefined;
    const sessionTitle = () => (title ??= ctx.db.sessions.get(tenant, subject.item.session_id).then((s) => s?.title));
    for (const target of all.filter((t) => wants(t, subject))) {
      // The approval link, while there is still something to answer.
      const link = subject.item.status === "pending" ? await links.forTarget(subject.item, target.target_id) : undefined;
      const payload = target.target_kind === "slack" ? slackBody(subject, link, await sessionTitle()) : webhookBody(subject, ctx.iso(), link);
      const d = { tenant, target_id: target.target_id, event_id: subject.eventId };
      const delivery = {
        ...d,
        webhook_id: webhookId(tenant, target.target_id, subject.eventId),
        payload_json: payload,
        created_at: ctx.iso(),
        expires_at: Math.floor(ctx.now() / 1000) + DELIVERY_RETENTION_SECONDS,
      };
      await store.createDelivery(delivery);
      // A replayed record finds the delivery and the schedule both there; a schedule that ran is gone, and its claim refuses a second start.
      await scheduleAttempt(d, 1, ctx.now() + FIRST_ATTEMPT_MS);
    }
    return all;
  }

  async function send(target: TargetItem, delivery: DeliveryItem): Promise<{ ok: boolean; status?: number; error?: string }> {
    const url = new URL(target.url);
    const headers: Record<string, string> = { "content-type": "application/json", "user-agent": "Tollgate-Webhooks/1" };
    if (target.target_kind === "webhook" && target.secret) {
      const timestamp = Math.floor(ctx.now() / 1000);
      Object.assign(headers, {
        "webhook-id": delivery.webhook_id,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": signature(target.secret, delivery.webhook_id, timestamp, delivery.payload_json),
      });
    }
    // In the cloud the connection goes to public addresses only; locally anywhere (a target there is loopback or https).
    const allowed = ctx.config.notify.local ? () => true : (address: string) => !isNonPublic(address);
    const result = await post(url, headers, delivery.payload_json, { resolve: ctx.resolve, allowed, timeoutMs: ctx.config.notify.timeoutMs });
    return "status" in result ? { ok: delivered(result.status), status: result.status } : { ok: false, error: result.error };
  }

  /** Nothing the attempt would add to the target's item: a record within the interval, and no run of failures started or ended. */
  function quiet(target: TargetRecord, attempt: AttemptRecord, ok: boolean) {
    const newest = target.last_attempts?.[0];
    return newest !== undefined && Date.parse(attempt.at) - Date.parse(newest.at) < ctx.config.notify.successRecordMs && !changes(target, ok);
  }

  /**
   * The attempt on its target's item when it says something new (a failure while the target is not
   * failing: it sets `failing_since`; a success after a failure: it clears it), and otherwise only
   * once the newest recorded attempt is `successRecordMs` old: a busy target, healthy or failing,
   * writes its one item about once an interval, not at every attempt. A write is decided from the
   * item read again now, not as `before` (read before sending): others may have recorded meanwhile.
   * When `before` already says nothing new, as for most attempts of a busy target, there is no second
   * read: a record since only makes the attempt less new, and a run started or ended meanwhile is
   * recorded by the next attempt that sees it (a failed one's retry at the latest).
   */
  async function record(before: TargetRecord, tenant: string, targetId: string, attempt: AttemptRecord, ok: boolean) {
    if (quiet(before, attempt, ok)) return;
    const target = await store.findEventually(tenant, targetId);
    if (!target) return;
    known.learn(tenant, targetId, target);
    if (quiet(target, attempt, ok)) return;
    const attempts = [attempt, ...(target.last_attempts ?? [])].slice(0, KEPT_ATTEMPTS);
    await store.recordAttempt(tenant, targetId, attempts, ok, attempt.at);
    known.learn(tenant, targetId, { last_attempts: attempts, failing_since: ok ? undefined : (target.failing_since ?? attempt.at) });
  }

  /** One attempt, as its schedule fires it: a second firing of the same attempt finds it claimed and does nothing. */
  async function attempt(tenant: string, targetId: string, eventId: string, n: number): Promise<void> {
    const delivery = await store.findDelivery(tenant, targetId, eventId);
    if (!delivery || delivery.done || delivery.ended >= n) return;
    const target = await known.find(tenant, targetId);
    if (!target || target.disabled_reason) {
      if (await store.claimAttempt(delivery, n, ctx.now(), ctx.now())) await store.endAttempt(delivery, n, "failed");
      return;
    }
    const leaseMs = ctx.config.notify.timeoutMs + 5_000;
    if (!(await store.claimAttempt(delivery, n, ctx.now(), ctx.now() + leaseMs))) return lookAgainAfterLease(tenant, targetId, eventId, n);
    const outcome = await send(target, delivery);
    await record(target, tenant, targetId, { at: ctx.iso(), event_id: eventId, ...(outcome.status ? { status: outcome.status } : {}), ...(outcome.error ? { error: outcome.error } : {}) }, outcome.ok);
    if (outcome.ok) return void (await store.endAttempt(delivery, n, "delivered"));
    const pause = ctx.config.notify.retryDelaysMs[n - 1];
    if (pause === undefined) {
      await store.disable(tenant, targetId, `deliveries failed through every retry (last: ${outcome.status ? `HTTP ${outcome.status}` : outcome.error}, ${eventId})`);
      return void (await store.endAttempt(delivery, n, "failed"));
    }
    await scheduleAttempt(delivery, n + 1, ctx.now() + Math.max(FIRST_ATTEMPT_MS, jittered(pause)));
    await store.endAttempt(delivery, n);
  }

  return {
    fanOut,
    attempt,
    requested: (item: ElicitationItem) => fanOut({ type: "elicitation.requested", eventId: `${item.elicitation_id}.requested`, item }),
    resolved: (item: ElicitationItem) => fanOut({ type: "elicitation.resolved", eventId: `${item.elicitation_id}.resolved`, item }),
    escalated: (item: ElicitationItem) => fanOut({ type: "elicitation.escalated", eventId: `${item.elicitation_id}.escalated.${item.block_round ?? 1}`, item }),
  };
}
export type Deliveries = ReturnType<typeof createDeliveries>;
