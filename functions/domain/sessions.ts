/** Sessions: registration with their ancestor chain, reads for the inbox and the platform. */
import { LIMITS, type SessionRegistration } from "../shared/schemas.js";
import { ProtocolError, badRequest, notFound } from "../shared/errors.js";
import { requireOwner, requireRole } from "./access.js";
import type { Context } from "./context.js";
import { keptMap } from "./kept.js";
import { eventOf, requestEvent, type Caller, type SessionItem } from "./items.js";

export interface SessionSummary {
  session_id: string;
  parent_session_id: string | null;
  title: string | null;
  pending_elicitations_count: number;
  pending_elicitation_ids: string[];
  awaiting_approval: boolean;
  updated_at: string | null;
}

/** `ids`: its pending elicitations' ids (`pendingIdsIn`, or as a snapshot read them); it shows `LIMITS.pendingIdsShown` at most. */
function summary(item: SessionItem, ids: Iterable<string>): SessionSummary {
  const count = Math.max(0, item.pending_count ?? 0);
  return {
    session_id: item.session_id,
    parent_session_id: item.parent_session_id ?? null,
    title: item.title ?? null,
    pending_elicitations_count: count,
    pending_elicitation_ids: [...ids].sort().slice(0, LIMITS.pendingIdsShown),
    awaiting_approval: count > 0,
    updated_at: item.updated_at,
  };
}

const unknownSummary = (sessionId: string): SessionSummary => ({
  session_id: sessionId,
  parent_session_id: null,
  title: null,
  pending_elicitations_count: 0,
  pending_elicitation_ids: [],
  awaiting_approval: false,
  updated_at: null,
});

/** What never changes once a session exists: its owner and its place in the tree. */
export type SessionLineage = Pick<SessionItem, "session_id" | "parent_session_id" | "ancestors" | "owner_sub">;

/** Lineages a process keeps (the oldest goes first): a runner's sessions, many times over. */
const KEPT_LINEAGES = 10_000;

export function createSessions(ctx: Context) {
  const { sessions: store, elicitations } = ctx.db;
  const lineages = keptMap<SessionLineage>(KEPT_LINEAGES);

  async function find(tenant: string, sessionId: string): Promise<SessionItem> {
    const item = await store.get(tenant, sessionId);
    if (!item) throw notFound("session");
    return item;
  }

  /**
   * A session's lineage, read once per process: sessions are never deleted and neither their owner
   * nor their parent changes, so what was read stays true. `item` is there when it was read just now.
   */
  async function lineage(tenant: string, sessionId: string): Promise<{ lineage: SessionLineage; item?: SessionItem }> {
    const kept = lineages.get(`${tenant}/${sessionId}`);
    if (kept) return { lineage: kept };
    const item = await find(tenant, sessionId);
    const { session_id, parent_session_id, ancestors, owner_sub } = item;
    const lineage = { session_id, parent_session_id, ancestors, owner_sub };
    lineages.set(`${tenant}/${sessionId}`, lineage);
    return { lineage, item };
  }

  /** Sessions as lists show them. */
  const summaries = (items: SessionItem[]) => Promise.all(items.map(async (item) => summary(item, await elicitations.pendingIdsIn(item, LIMITS.pendingIdsShown))));

  /** What registering does, decided from reads alone: a new item, or the existing one with its new title. */
  type Plan = { create: SessionItem } | { existing: SessionItem; title?: string };

  function planUpdate(caller: Caller, existing: SessionItem, reg: SessionRegistration): Plan {
    requireOwner(caller, existing);
    if (reg.parent_session_id !== undefined && reg.parent_session_id !== existing.parent_session_id) {
      throw new ProtocolError("conflict", "a session's parent cannot change");
    }
    return { existing, title: reg.title !== undefined && reg.title !== existing.title ? reg.title : undefined };
  }

  /** `planned`: sessions earlier in the same request, which later ones may name as parent. */
  async function plan(caller: Caller, reg: SessionRegistration, planned = new Map<string, SessionItem>()): Promise<Plan> {
    const existing = planned.get(reg.session_id) ?? (await store.get(caller.tenant, reg.session_id));
    if (existing) return planUpdate(caller, existing, reg);
    let ancestors: string[] = [];
    if (reg.parent_session_id !== undefined) {
      if (reg.parent_session_id === reg.session_id) throw new ProtocolError("conflict", "a session cannot be its own parent");
      const parent = planned.get(reg.parent_session_id) ?? (await store.get(caller.tenant, reg.parent_session_id));
      if (!parent) throw notFound("parent session");
      ancestors = [...parent.ancestors, parent.session_id];
      if (ancestors.length > LIMITS.ancestorDepth) throw badRequest(`sessions nest at most ${LIMITS.ancestorDepth} deep`);
    }
    const now = ctx.iso();
    return {
      create: store.item({
        tenant: caller.tenant,
        session_id: reg.session_id,
        parent_session_id: reg.parent_session_id,
        ancestors,
        title: reg.title,
        owner_sub: caller.sub,
        created_at: now,
        updated_at: now,
      }),
    };
  }

  async function apply(caller: Caller, reg: SessionRegistration, p: Plan): Promise<SessionItem> {
    if ("create" in p) {
      if (await store.create(p.create)) return p.create;
      return apply(caller, reg, planUpdate(caller, await find(caller.tenant, reg.session_id), reg)); // registered concurrently
    }
    if (p.title === undefined) return p.existing;
    return store.retitle(caller.tenant, reg.session_id, p.title, ctx.iso());
  }

  /** Create or update a session (PUT /v1/sessions/{id}). */
  async function register(caller: Caller, reg: SessionRegistration): Promise<SessionItem> {
    requireRole(caller, "registerSession");
    return apply(caller, reg, await plan(caller, reg));
  }

  /**
   * Check every registration of a `hello` before the first write, so a refused one changes nothing;
   * `apply` then writes them in order (a parent before the children that name it).
   */
  async function prepare(caller: Caller, regs: SessionRegistration[]) {
    requireRole(caller, "registerSession");
    const planned = new Map<string, SessionItem>();
    const plans: Plan[] = [];
    for (const reg of regs) {
      const p = await plan(caller, reg, planned);
      planned.set(reg.session_id, "create" in p ? p.create : p.existing);
      plans.push(p);
    }
    return {
      ids: [...planned.keys()],
      async apply(): Promise<SessionItem[]> {
        const done: SessionItem[] = [];
        for (const [i, reg] of regs.entries()) done.push(await apply(caller, reg, plans[i]));
        return done;
      },
    };
  }

  return {
    find,
    lineage,
    /** A session the table no longer holds (only a test removes one): read it again next time. */
    forget: (tenant: string, sessionId: string) => lineages.delete(`${tenant}/${sessionId}`),
    register,
    prepare,
    /** A session as `PUT` answers it. */
    summarize: async (item: SessionItem) => (await summaries([item]))[0],

    /** A page of the tenant's sessions in id order; `pending` keeps only those awaiting approval. */
    async list(caller: Caller, options: { limit: number; after?: string; pending: boolean }) {
      requireRole(caller, "read");
      const { items, last } = await store.page(caller.tenant, options);
      if (!options.pending) return { sessions: await summaries(items), last };
      // A session stays in the sparse index when its count drops to zero, so that neither that drop nor
      // its next raise writes the index; the first pending list to find it there at zero takes it out.
      const idle = items.filter((item) => item.pending_count <= 0);
      await Promise.all(idle.map((item) => store.leavePendingIndex(item.tenant, item.session_id)));
      return { sessions: await summaries(items.filter((item) => item.pending_count > 0)), last };
    },

    /** The items for these ids in one round of reads; unknown ids count 0. */
    async lookup(caller: Caller, ids: string[]): Promise<SessionSummary[]> {
      requireRole(caller, "read");
      const unique = [...new Set(ids)];
      const found = new Map((await summaries(await store.many(caller.tenant, unique))).map((s) => [s.session_id, s]));
      return unique.map((id) => found.get(id) ?? unknownSummary(id));
    },

    /** The session with its own and its descendants' pending request events, oldest first. */
    async snapshot(caller: Caller, sessionId: string) {
      requireRole(caller, "read");
      const [session, below] = await Promise.all([find(caller.tenant, sessionId), elicitations.pendingBelow(caller.tenant, sessionId)]);
      const own = await elicitations.pendingIn(session);
      const ids = own.map((e) => e.elicitation_id);
      return {
        ...summary(session, ids),
        pending_elicitations: own.map(requestEvent),
        descendant_pending_elicitations: below.map(eventOf),
      };
    },

    /** Compact items for a parent agent reading a sub-agent (the peek projection of docs/protocol.md "HTTP API"). */
    async peek(caller: Caller, sessionId: string) {
      requireRole(caller, "peek");
      const session = await find(caller.tenant, sessionId);
      requireOwner(caller, session);
      const own = await elicitations.pendingIn(session);
      return {
        items: own.map(requestEvent).map((event) => {
          const fields = Object.keys(event.params.requestedSchema?.properties ?? {});
          return {
            type: "pending_elicitation" as const,
            elicitation_id: event.elicitation_id,
            prompt: event.params.message,
            ...(fields.length > 0 ? { fields } : {}),
          };
        }),
      };
    },
  };
}
export type Sessions = ReturnType<typeof createSessions>;
