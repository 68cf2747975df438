/** What a runner does over its connection and as a run: hello with resume, cancel-all, and runner gone. */
import { requireOwner, requireRole } from "./access.js";
import type { Connections } from "./connections.js";
import type { Context } from "./context.js";
import type { Elicitations, RaiseInput } from "./elicitations.js";
import { TOLLGATE, type Caller, type Connection, type ElicitationItem } from "./items.js";
import { keptMap } from "./kept.js";
import type { Messages } from "./messages.js";
import type { Sessions } from "./sessions.js";
import type { SessionRegistration } from "../shared/schemas.js";

/** (connection, session) pairs a process keeps, the oldest going first. */
const KEPT_PAIRS = 10_000;

export function createRunners(ctx: Context, sessions: Sessions, connections: Connections, elicitations: Elicitations, messages: Messages) {
  // The sessions this process saw tracked on a connection. A connection's tracked sessions only grow
  // while it lives and its id is never reused, so what is known stays true: an `elicit` in a session
  // its connection already tracks need not read the session nor write the connection.
  const tracked = keptMap<true>(KEPT_PAIRS);
  return {
    /**
     * Register and bind the sessions, then in this order: `hello.ok`, the verdicts of resumed
     * elicitations that resolved meanwhile, and the messages queued for these sessions.
     */
    async hello(caller: Caller, connection: Connection, input: { sessions: SessionRegistration[]; resume?: string[]; ref?: unknown }) {
      const prepared = await sessions.prepare(caller, input.sessions);
      await connections.track(caller, connection.id, prepared.ids);
      const registered = await prepared.apply();
      await connections.bindRunner(caller, connection.id, prepared.ids);
      await ctx.push.send(connection.id, { type: "hello.ok", connection_id: connection.id, ...(input.ref !== undefined ? { ref: input.ref } : {}) });
      for (const id of new Set(input.resume ?? [])) {
        const item = await elicitations.find(caller.tenant, id);
        if (!item || (caller.role === "runner" && item.owner_sub !== caller.sub)) continue;
        await elicitations.attach(item, connection);
      }
      for (const session of registered) await messages.flush(caller.tenant, session.session_id);
    },

    /**
     * `elicit` over a socket: its session is tracked on this connection too, so the runner-gone path
     * sees it, and bound to it (a new elicitation's own transaction binds it; a re-publish binds it here).
     */
    async elicit(caller: Caller, connection: Connection, input: RaiseInput) {
      const raised = await elicitations.raise(caller, input, connection);
      const known = raised.session_runner === connection.id || tracked.get(`${connection.id}/${input.session_id}`) === true;
      if (!known || !raised.created) await connections.track(caller, connection.id, [input.session_id]);
      if (!raised.created) await connections.bindRunner(caller, connection.id, [input.session_id]);
      tracked.set(`${connection.id}/${input.session_id}`, true);
      return raised;
    },

    /** Cancel every pending elicitation of a run (docs/protocol.md "Lifecycle rules" 7); descendants through their mirror rows. */
    async cancelSession(caller: Caller, sessionId: string, descendants: boolean): Promise<{ cancelled: number }> {
      requireRole(caller, "cancel");
      const session = await sessions.find(caller.tenant, sessionId);
      requireOwner(caller, session);
      const { elicitations: store } = ctx.db;
      const [own, below] = await Promise.all([store.pendingIn(session), descendants ? store.pendingBelow(caller.tenant, sessionId) : []]);
      let cancelled = 0;
      /** `known`: the item as just read (consistently), which spares reading it again. */
      const cancel = async (elicitation_id: string, known?: ElicitationItem) => {
        const { won } = await elicitations.resolve({ tenant: caller.tenant, elicitation_id, action: "cancel", reason: "cancelled", resolved_by: caller.sub }, known);
        if (won) cancelled++;
      };
      // One after another: resolutions of one session all write its count item, and side by side their transactions would conflict.
      for (const item of own) await cancel(item.elicitation_id, item);
      for (const row of below) await cancel(row.elicitation_id);
      return { cancelled };
    },

    /** The reconnect grace ended: what the connection left pending and nobody resumed resolves `runner_gone`. */
    async expireConnection(tenant: string, connectionId: string): Promise<void> {
      const left: ElicitationItem[] = await connections.leftBehind(tenant, connectionId);
      for (const item of left) {
        await elicitations.resolve({
          tenant,
          elicitation_id: item.elicitation_id,
          action: "cancel",
          reason: "runner_gone",
          resolved_by: TOLLGATE,
          bound_to: connectionId,
        });
      }
    },
  };
}
export type Runners = ReturnType<typeof createRunners>;
