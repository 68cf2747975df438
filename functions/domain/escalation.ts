/**
 * Sub-agent escalation (docs/protocol.md "Lifecycle rules" 4, 5): the parent hears once per block that its child is
 * stuck, and hears again when it clears. The block's state lives on the elicitation and moves by
 * conditional writes only, so a resolution racing the delivery is always seen by one side.
 */
import type { Context } from "./context.js";
import { paramsOf, type ElicitationItem } from "./items.js";
import type { Messages, Outgoing } from "./messages.js";
import { blockNotice, resolutionNotice } from "./notices.js";
import type { Sessions } from "./sessions.js";
import { timerKeys } from "./timers.js";

const ATTEMPTS = 3;

export function createEscalation(ctx: Context, sessions: Sessions, messages: Messages) {
  const { elicitations } = ctx.db;
  /** Move the block from one state to another; undefined when it was not in `from` (someone else moved it). */
  const move = elicitations.moveBlock;

  /** Up to three attempts about 0.5 s apart; `stillBlocked` stops a block notice that went stale. */
  async function deliver(tenant: string, parentId: string, notice: Outgoing, stillBlocked?: () => Promise<boolean>) {
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      if (stillBlocked && !(await stillBlocked())) return "moot" as const;
      try {
        return await messages.notify(tenant, parentId, notice);
      } catch {
        if (attempt < ATTEMPTS) await ctx.sleep(ctx.config.noticeRetryDelayMs);
      }
    }
    return "failed" as const;
  }

  async function childOf(item: ElicitationItem) {
    return sessions.find(item.tenant, item.session_id);
  }

  /** After a delivered or queued block notice, the resolution: withdraw it if still queued, else say it cleared. */
  async function settle(item: ElicitationItem): Promise<void> {
    const parentId = item.ancestors.at(-1);
    if (!parentId) return;
    if (item.block_state === "armed") {
      if (await move(item, "armed", "cleared")) await ctx.timers.cancel("escalation", timerKeys.escalation(item));
      return;
    }
    if (item.block_state !== "delivered" && item.block_state !== "queued") return; // delivering: the deliverer settles
    if (!(await move(item, item.block_state, "settled"))) return;
    if (item.block_state === "queued" && item.notice_seq !== undefined && (await messages.withdraw(item.tenant, parentId, item.notice_seq))) return;
    const outcome = await deliver(item.tenant, parentId, { kind: "notice", text: resolutionNotice(await childOf(item)) });
    if (outcome === "failed") {
      await move({ ...item, block_state: "settled" }, "settled", item.block_state); // let a retry of this record try again
      throw new Error("resolution notice could not be delivered");
    }
  }

  return {
    settle,

    /** The grace ended (Scheduler): if the block still stands, tell the parent once. */
    async fire(tenant: string, elicitationId: string, round: number): Promise<void> {
      const item = await elicitations.get(tenant, elicitationId);
      const parentId = item?.ancestors.at(-1);
      if (!item || !parentId || (item.block_round ?? 1) !== round) return;
      const claimed = await move(item, "armed", "delivering", { pending: true });
      if (!claimed) return;
      const notice: Outgoing = { kind: "notice", text: blockNotice(await childOf(item), paramsOf(item).message), notice_for: elicitationId };
      const stillBlocked = async () => (await elicitations.get(tenant, elicitationId))?.status === "pending";
      const outcome = await deliver(tenant, parentId, notice, stillBlocked);
      if (outcome === "moot") {
        await move(claimed, "delivering", "cleared");
        return;
      }
      if (outcome === "failed") {
        await move(claimed, "delivering", "released");
        return;
      }
      const recorded = await move(claimed, "delivering", outcome.via === "pushed" ? "delivered" : "queued", {
        ...(outcome.via === "queued" ? { notice_seq: outcome.seq } : {}),
      });
      // A resolution that landed while the notice was on its way saw `delivering` and left it to us.
      if (recorded?.status === "resolved") await settle(recorded);
    },
  };
}
export type Escalation = ReturnType<typeof createEscalation>;
