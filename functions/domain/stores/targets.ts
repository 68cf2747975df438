/** Notification targets (one item per target, under the tenant's targets partition) and their deliveries (one item per target and event). */
import type { NotificationEvent } from "../../shared/notification-schemas.js";
import { keys } from "./keys.js";
import type { Table } from "./table.js";

export interface AttemptRecord {
  at: string;
  event_id: string;
  status?: number;
  error?: string;
}

export interface TargetItem {
  pk: string;
  sk: string;
  kind: "notification_target";
  tenant: string;
  target_id: string;
  target_kind: "webhook" | "slack";
  url: string;
  events: NotificationEvent[];
  sessions?: string[];
  remind_after_seconds?: number;
  remind_times?: number;
  secret?: string;
  created_at: string;
  updated_at: string;
  disabled_reason?: string;
  failing_since?: string;
  last_attempts?: AttemptRecord[];
}

/** What a target's item says of its attempts: an attempt decides from it whether to record. */
export type TargetRecord = Pick<TargetItem, "last_attempts" | "failing_since">;

export interface DeliveryItem {
  pk: string;
  sk: string;
  kind: "notification_delivery";
  tenant: string;
  target_id: string;
  event_id: string;
  webhook_id: string;
  /** The event's payload as JSON, the same bytes at every attempt. */
  payload_json: string;
  created_at: string;
  /** Attempts started so far, and the last one that ended. */
  attempt: number;
  ended: number;
  lease_until?: number;
  done?: "delivered" | "failed";
  expires_at: number;
}

/** A delivery as it was read: its own key, new or old. */
type DeliveryKey = Pick<DeliveryItem, "pk" | "sk">;

export type TargetSettings = Pick<TargetItem, "target_kind" | "url" | "events" | "sessions" | "remind_after_seconds" | "remind_times">;

/** The settings a target may leave out: a save sets those given and removes the others. */
const OPTIONAL_SETTINGS = ["sessions", "remind_after_seconds", "remind_times"] as const;

export function targetStore(table: Table) {
  return {
    find: (tenant: string, targetId: string) => table.get<TargetItem>(keys.target(tenant, targetId)),
    /**
     * The target read eventually consistent (half a read unit), as every attempt of a busy target reads
     * it: before sending (a change of the last moment, a PUT, a rotation, a removal, may reach only the
     * attempts after this one, as if this one had started a moment sooner) and again before deciding
     * whether to record (a record missed by a moment costs one write at most).
     */
    findEventually: (tenant: string, targetId: string) => table.get<TargetItem>(keys.target(tenant, targetId), { consistent: false }),
    list: (tenant: string) => table.queryAll<TargetItem>({ KeyConditionExpression: "pk = :pk", ExpressionAttributeValues: { ":pk": keys.targets(tenant) } }),
    /**
     * Create or change a target; a change keeps its secret and enables it again. Undefined when the
     * target exists with another kind. `secret` is kept only when the target is created.
     */
    save: (tenant: string, targetId: string, settings: TargetSettings, secret: string | undefined, now: string) => {
      const given = OPTIONAL_SETTINGS.filter((name) => settings[name] !== undefined);
      const removed = ["disabled_reason", "failing_since", ...OPTIONAL_SETTINGS.filter((name) => settings[name] === undefined)];
      return table.update<TargetItem>({
        Key: keys.target(tenant, targetId),
        UpdateExpression: `SET kind = :kind, tenant = :tenant, target_id = :id, target_kind = :tk, #url = :url, events = :events, updated_at = :now, created_at = if_not_exists(created_at, :now)${secret ? ", secret = if_not_exists(secret, :secret)" : ""}${given.map((name) => `, ${name} = :${name}`).join("")} REMOVE ${removed.join(", ")}`,
        ConditionExpression: "attribute_not_exists(pk) OR target_kind = :tk",
        ExpressionAttributeNames: { "#url": "url" },
        ExpressionAttributeValues: {
          ":kind": "notification_target",
          ":tenant": tenant,
          ":id": targetId,
          ":tk": settings.target_kind,
          ":url": settings.url,
          ":events": settings.events,
          ":now": now,
          ...(secret ? { ":secret": secret } : {}),
          ...Object.fromEntries(given.map((name) => [`:${name}`, settings[name]])),
        },
      });
    },
    rotate: (tenant: string, targetId: string, secret: string, now: string) =>
      table.update<TargetItem>({
        Key: keys.target(tenant, targetId),
        UpdateExpression: "SET secret = :secret, updated_at = :now",
        ConditionExpression: "attribute_exists(pk) AND target_kind = :webhook",
        ExpressionAttributeValues: { ":secret": secret, ":now": now, ":webhook": "webhook" },
      }),
    remove: (tenant: string, targetId: string) => table.delete({ Key: keys.target(tenant, targetId), ConditionExpression: "attribute_exists(pk)" }),
    /** What the latest attempt said; `failing_since` marks the first failure of a run of them. */
    recordAttempt: (tenant: string, targetId: string, attempts: AttemptRecord[], ok: boolean, now: string) =>
      table.update<TargetItem>({
        Key: keys.target(tenant, targetId),
        UpdateExpression: ok ? "SET last_attempts = :a REMOVE failing_since" : "SET last_attempts = :a, failing_since = if_not_exists(failing_since, :now)",
        ConditionExpression: "attribute_exists(pk)",
        ExpressionAttributeValues: { ":a": attempts, ...(ok ? {} : { ":now": now }) },
      }),
    disable: (tenant: string, targetId: string, reason: string) =>
      table.update<TargetItem>({
        Key: keys.target(tenant, targetId),
        UpdateExpression: "SET disabled_reason = :r",
        ConditionExpression: "attribute_exists(pk)",
        ExpressionAttributeValues: { ":r": reason },
      }),

    /**
     * A delivery created before each had a partition of its own sits at the old key, and its retries
     * may still be scheduled (a day at most): the old key is read only when the new one is absent,
     * so a delivery of now costs one read.
     */
    findDelivery: async (tenant: string, targetId: string, eventId: string) =>
      (await table.get<DeliveryItem>(keys.delivery(tenant, targetId, eventId))) ?? table.get<DeliveryItem>(keys.deliveryInTargetPartition(tenant, targetId, eventId)),
    /** The delivery of one event to one target, once: false when it exists already. */
    createDelivery: (item: Omit<DeliveryItem, "pk" | "sk" | "kind" | "attempt" | "ended">) =>
      table.put({
        Item: { ...keys.delivery(item.tenant, item.target_id, item.event_id), kind: "notification_delivery", attempt: 0, ended: 0, ...item },
        ConditionExpression: "attribute_not_exists(pk)",
      }),
    /** Start attempt `n`: after attempt n-1 ended, or when an earlier start of n lost its lease. At the key the delivery was read at. */
    claimAttempt: (d: DeliveryKey, n: number, now: number, leaseUntil: number) =>
      table.update<DeliveryItem>({
        Key: { pk: d.pk, sk: d.sk },
        UpdateExpression: "SET attempt = :n, lease_until = :until",
        ConditionExpression: "attribute_exists(pk) AND attribute_not_exists(done) AND ended = :prev AND (attempt = :prev OR (attempt = :n AND lease_until < :now))",
        ExpressionAttributeValues: { ":n": n, ":prev": n - 1, ":now": now, ":until": leaseUntil },
      }),
    /** Attempt `n` ended: delivered, given up, or (no `done`) the next one is scheduled. */
    endAttempt: (d: DeliveryKey, n: number, done?: DeliveryItem["done"]) =>
      table.update<DeliveryItem>({
        Key: { pk: d.pk, sk: d.sk },
        UpdateExpression: done ? "SET ended = :n, done = :done REMOVE lease_until" : "SET ended = :n REMOVE lease_until",
        ConditionExpression: "attempt = :n",
        ExpressionAttributeValues: { ":n": n, ...(done ? { ":done": done } : {}) },
      }),
  };
}
export type TargetStore = ReturnType<typeof targetStore>;
