/** Managing a tenant's notification targets (`service` tokens only): create, change, list, read, delete, rotate the secret. */
import { randomBytes } from "node:crypto";
import { ProtocolError, notFound } from "../../shared/errors.js";
import { NotificationEvent, type NotificationTarget, type PutTargetBody } from "../../shared/notification-schemas.js";
import { requireRole } from "../access.js";
import type { Context } from "../context.js";
import type { Caller } from "../items.js";
import type { TargetItem } from "../stores/targets.js";
import { remindTimes } from "./reminders.js";
import { checkTargetUrl } from "./urls.js";

/** A Standard Webhooks signing secret: `whsec_` and 24 random bytes in base64. */
const newSecret = () => `whsec_${randomBytes(24).toString("base64")}`;

/** Each value once, in the order first given: `events` and `sessions` are sets. */
const once = <T>(values: readonly T[] | undefined) => values && [...new Set(values)];

/** The target as the API shows it; the secret only when `withSecret`. */
export function targetView(item: TargetItem, withSecret = false): NotificationTarget {
  return {
    target_id: item.target_id,
    kind: item.target_kind,
    url: item.url,
    events: item.events,
    ...(item.sessions ? { sessions: item.sessions } : {}),
    ...(item.remind_after_seconds ? { remind_after_seconds: item.remind_after_seconds, remind_times: remindTimes(item) } : {}),
    created_at: item.created_at,
    updated_at: item.updated_at,
    ...(item.disabled_reason ? { disabled_reason: item.disabled_reason } : {}),
    last_attempts: item.last_attempts ?? [],
    ...(withSecret && item.secret ? { secret: item.secret } : {}),
  };
}

export function createTargets(ctx: Context) {
  const store = ctx.db.targets;

  async function put(caller: Caller, targetId: string, body: PutTargetBody): Promise<{ created: boolean; target: NotificationTarget }> {
    requireRole(caller, "manageTargets");
    const url = await checkTargetUrl(body.url, ctx.config.notify.local, ctx.resolve);
    const secret = body.kind === "webhook" ? newSecret() : undefined;
    const settings = {
      target_kind: body.kind,
      url: url.href,
      events: once(body.events) ?? NotificationEvent.options,
      sessions: once(body.sessions),
      remind_after_seconds: body.remind_after_seconds,
      remind_times: body.remind_times,
    };
    const saved = await store.save(caller.tenant, targetId, settings, secret, ctx.iso());
    if (!saved) throw new ProtocolError("conflict", "the target exists with another kind");
    const created = secret !== undefined ? saved.secret === secret : saved.created_at === saved.updated_at;
    return { created, target: targetView(saved, created) };
  }

  async function find(caller: Caller, targetId: string): Promise<TargetItem> {
    requireRole(caller, "manageTargets");
    const item = await store.find(caller.tenant, targetId);
    if (!item) throw notFound("notification target");
    return item;
  }

  return {
    put,
    get: async (caller: Caller, targetId: string) => targetView(await find(caller, targetId)),
    async list(caller: Caller) {
      requireRole(caller, "manageTargets");
      return { targets: (await store.list(caller.tenant)).map((item) => targetView(item)) };
    },
    async remove(caller: Caller, targetId: string) {
      requireRole(caller, "manageTargets");
      if (!(await store.remove(caller.tenant, targetId))) throw notFound("notification target");
      return { target_id: targetId, deleted: true as const };
    },
    /** A new secret, shown once; deliveries sign with it from now on. */
    async rotate(caller: Caller, targetId: string) {
      const item = await find(caller, targetId);
      if (item.target_kind !== "webhook") throw new ProtocolError("conflict", "only a webhook target has a secret");
      const rotated = await store.rotate(caller.tenant, targetId, newSecret(), ctx.iso());
      if (!rotated) throw notFound("notification target");
      return targetView(rotated, true);
    },
  };
}
export type Targets = ReturnType<typeof createTargets>;
