/**
 * The elicitation item and its rows: a `D#` row under each ancestor (docs/data-model.md "Items"), which
 * raise puts and resolve deletes in the same transaction. Its own session lists it in the session item's
 * `pending_ids` in the same transaction too (stores/sessions.ts), or, when the item lists its most
 * already, it has a `P#` row under its session.
 */
import type { BlockState, Connection, ElicitationItem, PendingRow, SessionItem, Verdict } from "../items.js";
import { keys } from "./keys.js";
import type { Table, Write } from "./table.js";

/** A new elicitation as the rules describe it; the store adds its keys. */
export type NewElicitation = Omit<ElicitationItem, "pk" | "sk" | "kind">;

/**
 * How a resolving write claims the verdict's delivery: `reply` binds it to the runner that
 * cancelled and claims it there (the verdict goes out as the reply); `bound` claims it for the
 * connection it is bound to, on condition that the binding still holds; none claims nothing.
 */
export type ResolveClaim = { reply: string } | { bound: string } | undefined;

/** The three forms of the resolving update, one per kind of claim. */
const RESOLVE = {
  plain: { set: "SET #s = :resolved, verdict = :verdict, expires_at = :ttl", condition: "#s = :pending" },
  reply: { set: "SET #s = :resolved, verdict = :verdict, expires_at = :ttl, connection_id = :c, delivered_to = :c, delivered_at = :now", condition: "#s = :pending" },
  bound: { set: "SET #s = :resolved, verdict = :verdict, expires_at = :ttl, delivered_to = :c, delivered_at = :now", condition: "#s = :pending AND connection_id = :c" },
} as const;

/** Its place in the history: the keys of the sparse `history-by-tenant` index, set by the resolving write itself. */
const placeInHistory = (tenant: string, resolvedAt: string, elicitationId: string) => {
  const { history_pk, history_sk } = keys.history(tenant, resolvedAt, elicitationId);
  return { set: ", history_pk = :hpk, history_sk = :hsk", values: { ":hpk": history_pk, ":hsk": history_sk } };
};

const inCreationOrder = (a: ElicitationItem, b: ElicitationItem) => (a.created_at === b.created_at ? (a.elicitation_id < b.elicitation_id ? -1 : 1) : a.created_at < b.created_at ? -1 : 1);

export function elicitationStore(table: Table) {
  const key = (item: Pick<ElicitationItem, "tenant" | "elicitation_id">) => keys.elicitation(item.tenant, item.elicitation_id);
  const mirrorKeys = (item: Pick<ElicitationItem, "tenant" | "ancestors" | "created_at" | "elicitation_id">) =>
    item.ancestors.map((ancestor) => keys.descendant(item.tenant, ancestor, item.created_at, item.elicitation_id));
  /** One its session does not list (the item listed its most, or it was raised before sessions listed theirs) has a `P#` row. */
  const ownRowKeys = (item: Pick<ElicitationItem, "tenant" | "session_id" | "created_at" | "elicitation_id" | "listed_on_session">) =>
    item.listed_on_session ? [] : [keys.pending(item.tenant, item.session_id, item.created_at, item.elicitation_id)];
  /** A session's rows of one kind, oldest first (with `max`, the oldest `max`). */
  const rows = (tenant: string, sessionId: string, prefix: string, max?: number) =>
    table.queryAll<PendingRow>(
      {
        KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)",
        ExpressionAttributeValues: { ":pk": keys.sessionPartition(tenant, sessionId), ":prefix": prefix },
        ConsistentRead: true,
      },
      max,
    );

  /**
   * A session's own pending elicitations, oldest first, read by their ids (consistently): those its item
   * lists, and those with a `P#` row while its count says there are some.
   */
  async function pendingIn(session: SessionItem): Promise<ElicitationItem[]> {
    const ids = new Set(session.pending_ids ?? []);
    if (session.pending_count > ids.size) for (const row of await rows(session.tenant, session.session_id, keys.prefix.pending)) ids.add(row.elicitation_id);
    const items = await table.batchGet<ElicitationItem>([...ids].map((id) => keys.elicitation(session.tenant, id)));
    return items.filter((item) => item.status === "pending").sort(inCreationOrder);
  }

  return {
    get: (tenant: string, elicitationId: string) => table.get<ElicitationItem>(keys.elicitation(tenant, elicitationId)),

    pendingIn,

    /**
     * A session's pending ids for its summary, which shows `max` at most: its item's, when they are as many
     * as its count; with the oldest that have a row of their own when the count is above them; read when more
     * are listed than counted (a resolution by a function of the version before left its id).
     */
    async pendingIdsIn(session: SessionItem, max: number): Promise<string[]> {
      const listed = [...(session.pending_ids ?? [])];
      const count = Math.max(0, session.pending_count);
      if (listed.length === count) return listed;
      if (listed.length > count) return (await pendingIn(session)).map((e) => e.elicitation_id);
      if (listed.length >= max) return listed.slice(0, max);
      const withRows = await rows(session.tenant, session.session_id, keys.prefix.pending, max - listed.length);
      return [...listed, ...withRows.map((row) => row.elicitation_id)];
    },
    /** The pending elicitations of a session's descendants (any depth), oldest first. */
    pendingBelow: (tenant: string, sessionId: string) => rows(tenant, sessionId, keys.prefix.descendant),

    /**
     * The writes of a raise: the new elicitation (refused if its id exists) and its rows, carrying the
     * request event: its own `P#` row unless its session lists it (`listed`), and a `D#` under each ancestor.
     */
    raise(elicitation: NewElicitation, eventJson: string, listed: boolean): Write[] {
      const item: ElicitationItem = { ...key(elicitation), kind: "elicitation", ...elicitation, ...(listed ? { listed_on_session: true as const } : {}) };
      const row = (kind: "pending" | "descendant", { pk, sk }: { pk: string; sk: string }): Write => ({
        Put: { TableName: table.name, Item: { pk, sk, kind, elicitation_id: item.elicitation_id, event_json: eventJson } },
      });
      return [
        { Put: { TableName: table.name, Item: item, ConditionExpression: "attribute_not_exists(pk)" } },
        ...ownRowKeys(item).map((k) => row("pending", k)),
        ...mirrorKeys(item).map((k) => row("descendant", k)),
      ];
    },

    /**
     * The writes of a resolution: pending -> resolved with its verdict (and claim), and its place in the
     * history unless the deployment keeps none, and its mirror rows gone.
     */
    resolve(item: ElicitationItem, verdict: Verdict, claim: ResolveClaim, o: { at: string; expiresAt: number; history: boolean }): Write[] {
      const form = claim === undefined ? RESOLVE.plain : "reply" in claim ? RESOLVE.reply : RESOLVE.bound;
      const connection = claim === undefined ? {} : { ":c": "reply" in claim ? claim.reply : claim.bound, ":now": o.at };
      const history = o.history ? placeInHistory(item.tenant, verdict.resolved_at, item.elicitation_id) : { set: "", values: {} };
      return [
        {
          Update: {
            TableName: table.name,
            Key: key(item),
            UpdateExpression: form.set + history.set,
            ConditionExpression: form.condition,
            ExpressionAttributeNames: { "#s": "status" },
            ExpressionAttributeValues: { ":resolved": "resolved", ":pending": "pending", ":verdict": verdict, ":ttl": o.expiresAt, ...history.values, ...connection },
          },
        },
        ...[...ownRowKeys(item), ...mirrorKeys(item)].map(({ pk, sk }) => ({ Delete: { TableName: table.name, Key: { pk, sk } } })),
      ];
    },

    /** Bind a pending elicitation to a runner's connection; false when it is no longer pending or a newer connection holds it. */
    bind: async (item: ElicitationItem, connection: Connection) =>
      (await table.update({
        Key: key(item),
        UpdateExpression: "SET connection_id = :c, bound_at = :at",
        ConditionExpression: "#s = :pending AND (attribute_not_exists(bound_at) OR bound_at <= :at)",
        ExpressionAttributeNames: { "#s": "status" },
        ExpressionAttributeValues: { ":c": connection.id, ":at": connection.connectedAt, ":pending": "pending" },
      })) !== undefined,

    /** Claim the delivery of a resolved verdict to `connectionId` (`again`: a connection that asks for it, whether or not it had it before). */
    claimDelivery: async (item: ElicitationItem, connectionId: string, again: boolean, at: string) =>
      (await table.update({
        Key: key(item),
        UpdateExpression: "SET delivered_to = :c, delivered_at = :now, connection_id = :c",
        ConditionExpression: again ? "#s = :resolved" : "#s = :resolved AND attribute_not_exists(delivered_to)",
        ExpressionAttributeNames: { "#s": "status" },
        ExpressionAttributeValues: { ":c": connectionId, ":now": at, ":resolved": "resolved" },
      })) !== undefined,

    /** Undo a claim whose push failed; `forget` also drops the dead connection. */
    releaseDelivery: (item: ElicitationItem, connectionId: string, forget: boolean) =>
      table.update({
        Key: key(item),
        UpdateExpression: forget ? "REMOVE delivered_to, delivered_at, connection_id" : "REMOVE delivered_to, delivered_at",
        ConditionExpression: "delivered_to = :c",
        ExpressionAttributeValues: { ":c": connectionId },
      }),

    /** A released block armed again for a new round, while still pending. */
    rearm: (item: ElicitationItem) =>
      table.update({
        Key: key(item),
        UpdateExpression: "SET block_state = :armed ADD block_round :one",
        ConditionExpression: "block_state = :released AND #s = :pending",
        ExpressionAttributeNames: { "#s": "status" },
        ExpressionAttributeValues: { ":armed": "armed", ":released": "released", ":one": 1, ":pending": "pending" },
      }),

    /**
     * Move the block from one state to another: the item as it left it, or undefined when the block
     * was not in `from` (or, with `pending`, the elicitation is no longer pending in this round).
     */
    moveBlock: (item: ElicitationItem, from: BlockState, to: BlockState, extra: { pending?: true; notice_seq?: number } = {}) =>
      table.update<ElicitationItem>({
        Key: key(item),
        UpdateExpression: extra.notice_seq !== undefined ? "SET block_state = :to, notice_seq = :seq" : "SET block_state = :to",
        ConditionExpression: extra.pending ? "block_state = :from AND #s = :pending AND block_round = :round" : "block_state = :from",
        ExpressionAttributeNames: extra.pending ? { "#s": "status" } : undefined,
        ExpressionAttributeValues: {
          ":to": to,
          ":from": from,
          ...(extra.pending ? { ":pending": "pending", ":round": item.block_round ?? 1 } : {}),
          ...(extra.notice_seq !== undefined ? { ":seq": extra.notice_seq } : {}),
        },
      }),
  };
}
export type ElicitationStore = ReturnType<typeof elicitationStore>;
