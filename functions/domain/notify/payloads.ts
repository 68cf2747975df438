/**
 * What one event looks like on the wire to each kind of target: a Standard Webhooks body
 * (`type`, `timestamp`, `data` = the event in docs/protocol.md's shapes) for a webhook, a Block Kit
 * message for a Slack incoming webhook.
 */
import type { NotificationEvent } from "../../shared/notification-schemas.js";
import { paramsOf, requestEvent, resolvedEvent, type ElicitationItem } from "../items.js";
import type { ApprovalLink } from "../links.js";

export interface NotificationSubject {
  type: NotificationEvent;
  /** Unique per elicitation and event (a reminder and an escalation carry their round). */
  eventId: string;
  item: ElicitationItem;
}

function eventData(subject: NotificationSubject): Record<string, unknown> {
  const { item } = subject;
  if (subject.type === "elicitation.resolved" && item.verdict) return resolvedEvent(item as Parameters<typeof resolvedEvent>[0]);
  if (subject.type === "elicitation.escalated") return { elicitation_id: item.elicitation_id, session_id: item.session_id, ancestors: item.ancestors, round: item.block_round ?? 1 };
  return requestEvent(item);
}

/** The link as a message carries it: its page's address (when the deployment names one), the capability, its expiry. */
const linkField = (link: ApprovalLink) => ({ ...(link.url ? { url: link.url } : {}), token: link.token, expires_at: link.expires_at });

export function webhookBody(subject: NotificationSubject, at: string, link?: ApprovalLink): string {
  return JSON.stringify({ type: subject.type, timestamp: at, data: eventData(subject), ...(link ? { link: linkField(link) } : {}) });
}

const text = (s: string) => ({ type: "mrkdwn", text: s.slice(0, 3000) });

/** Slack's mrkdwn treats these three as markup: a title or prompt shows as written. */
const escaped = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

export function slackBody(subject: NotificationSubject, link?: ApprovalLink, sessionTitle?: string): string {
  const { item } = subject;
  const session = `*Session:* ${escaped(sessionTitle ? `${sessionTitle} (${item.session_id})` : item.session_id)}`;
  if (subject.type === "elicitation.resolved" && item.verdict) {
    const v = item.verdict;
    const line = `Resolved: *${v.action}*${v.reason ? ` (${v.reason})` : ""} by ${escaped(v.resolved_by ?? "Tollgate")}${v.via === "link" ? " through an approval link" : ""}`;
    return JSON.stringify({
      text: line.slice(0, 3000),
      blocks: [
        { type: "section", text: text(line) },
        { type: "context", elements: [text(session)] },
      ],
    });
  }
  const prompt = escaped(paramsOf(item).message);
  const heading = subject.type === "elicitation.escalated" ? "Blocking a parent agent" : subject.type === "elicitation.reminder" ? "Still waiting for you" : "Approval needed";
  return JSON.stringify({
    text: `${heading}: ${prompt}`.slice(0, 3000),
    blocks: [
      { type: "header", text: { type: "plain_text", text: heading } },
      { type: "section", text: text(prompt) },
      { type: "context", elements: [text(session), text(`*Asked by:* ${escaped(item.owner_sub ?? "agent")}`), text(`*Deadline:* ${item.deadline}`)] },
      ...(link?.url ? [{ type: "actions", elements: [{ type: "button", text: { type: "plain_text", text: "Open approval" }, url: link.url, style: "primary", action_id: "open_approval" }] }] : []),
    ],
  });
}
