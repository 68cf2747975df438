/**
 * Approval links (docs/protocol.md "Approval links"): made for a notification target's message or
 * shared by hand, each one lets its holder read one elicitation and give it one verdict, without
 * signing in. The verdict records `via: "link"` and, as `resolved_by`, whom the link was made for.
 */
import { ProtocolError, notFound } from "../shared/errors.js";
import type { LinkGrant } from "../shared/links.js";
import type { VerdictAction } from "../shared/schemas.js";
import { requireRole } from "./access.js";
import type { Context } from "./context.js";
import type { Elicitations } from "./elicitations.js";
import { requestEvent, shownVerdict, type Caller, type ElicitationItem } from "./items.js";

export interface ApprovalLink {
  elicitation_id: string;
  /** The capability itself; the page takes it from the URL's fragment. */
  token: string;
  /** The standalone approval page with this link, when the deployment names its page. */
  url?: string;
  expires_at: string;
}

export interface LinkVerdict {
  action: VerdictAction;
  content?: Record<string, unknown>;
  message?: string;
}

/** A verdict as a link's holder may see it: never the form's content, which may be someone else's answer. */
function outcome<V extends { content?: unknown }>(verdict: V): Omit<V, "content"> {
  const { content: _content, ...rest } = verdict;
  return rest;
}

/** The page's address with the elicitation in its query and the link in its fragment (never sent to a server, never in a log). */
function pageUrl(page: string, elicitationId: string, token: string): string {
  const url = new URL(page);
  url.searchParams.set("elicitation", elicitationId);
  url.hash = `link=${token}`;
  return url.href;
}

export function createLinks(ctx: Context, elicitations: Elicitations) {
  async function issue(item: ElicitationItem, sub: string): Promise<ApprovalLink> {
    const exp = Math.floor(Date.parse(item.deadline) / 1000);
    const token = await ctx.links.sign({ tenant: item.tenant, elicitation_id: item.elicitation_id, sub, exp });
    const page = ctx.config.approvalPageUrl;
    return { elicitation_id: item.elicitation_id, token, ...(page ? { url: pageUrl(page, item.elicitation_id, token) } : {}), expires_at: item.deadline };
  }

  async function found(tenant: string, elicitationId: string): Promise<ElicitationItem> {
    const item = await elicitations.find(tenant, elicitationId);
    if (!item) throw notFound("elicitation");
    return item;
  }

  return {
    /** A link to share by hand (`POST /v1/elicitations/{id}/link`): only while the elicitation is pending. */
    async share(caller: Caller, elicitationId: string, forWhom?: string): Promise<ApprovalLink> {
      requireRole(caller, "shareLink");
      const item = await found(caller.tenant, elicitationId);
      if (item.status !== "pending") throw new ProtocolError("conflict", "this elicitation is already resolved");
      return issue(item, forWhom ?? caller.sub);
    },

    /** The link a notification target's message carries. */
    forTarget: (item: ElicitationItem, targetId: string) => issue(item, `target:${targetId}`),

    /** What the link's holder sees: the request, and once resolved its outcome without the form's content. */
    async read(grant: LinkGrant) {
      const item = await found(grant.tenant, grant.elicitation_id);
      return { session_id: item.session_id, status: item.status, event: requestEvent(item), ...(item.verdict ? { verdict: outcome(shownVerdict(item.verdict)) } : {}) };
    },

    /** The link's one verdict: the rules of any human's verdict, given as whom the link was made for. */
    async answer(grant: LinkGrant, verdict: LinkVerdict) {
      const item = await found(grant.tenant, grant.elicitation_id);
      const caller: Caller = { tenant: grant.tenant, sub: grant.sub, role: "human" };
      try {
        return await elicitations.answer(caller, item.session_id, { ...verdict, elicitation_id: item.elicitation_id, via: "link" });
      } catch (error) {
        // Another verdict stands: the conflict says which, as the link may see it.
        const standing = error instanceof ProtocolError ? (error.details.verdict as { content?: unknown } | undefined) : undefined;
        if (error instanceof ProtocolError && standing) throw new ProtocolError(error.code, error.message, { ...error.details, verdict: outcome(standing) });
        throw error;
      }
    },
  };
}
export type Links = ReturnType<typeof createLinks>;
