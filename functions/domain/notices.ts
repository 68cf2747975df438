/** The words of the notices a parent session gets about a blocked sub-agent (docs/protocol.md "Lifecycle rules" 5). */

const PROMPT_LIMIT = 200;

/** `"codex:auth-refactor"` -> `codex/auth-refactor`; `:closed:` cuts the title; no colon: the title; none: the id. */
export function childLabel(session: { session_id: string; title?: string }): string {
  const title = session.title ?? "";
  const colon = title.indexOf(":");
  if (colon < 0) return title || session.session_id;
  const agent = title.slice(0, colon);
  const rest = title.slice(colon + 1).split(":closed:")[0];
  return rest ? `${agent}/${rest}` : agent;
}

/** The prompt, trimmed; over 200 characters it is cut to 199 and ends with `…`. */
export function promptExcerpt(message: string | undefined): string {
  const chars = Array.from((message ?? "").trim());
  if (chars.length <= PROMPT_LIMIT) return chars.join("");
  const excerpt = chars
    .slice(0, PROMPT_LIMIT - 1)
    .join("")
    .trimEnd();
  return `${excerpt}…`;
}

export function blockNotice(child: { session_id: string; title?: string }, message: string | undefined): string {
  const prompt = promptExcerpt(message);
  const detail = prompt ? `: ${prompt}` : "";
  return (
    `[System: sub-agent ${childLabel(child)} is blocked awaiting human approval${detail}. ` +
    "Its prompt is shown to the human but has gone unanswered; surface the situation to the human " +
    "and do not wait silently. It cannot continue until the request is resolved.]"
  );
}

export function resolutionNotice(child: { session_id: string; title?: string }): string {
  return `[System: sub-agent ${childLabel(child)}'s pending approval was resolved and it is continuing. No action is needed on the earlier block notice.]`;
}
