/**
 * Claude Code's `PreToolUse` and `PermissionRequest` hooks answered by a human in Tollgate: the
 * hook's input as Claude Code documents it, the card that says what the tool would do, the ids
 * that let a rerun of the hook join the same wait, and the decision in the hook's output shape.
 */
import * as z from "zod";
import { idOf } from "./ids.js";
import type { ElicitParams, SessionInfo, Verdict } from "./runner.js";
import { whyCancelled } from "./frames.js";

export const HookInput = z.looseObject({
  session_id: z.string().min(1),
  transcript_path: z.string().optional(),
  cwd: z.string().optional(),
  permission_mode: z.string().optional(),
  hook_event_name: z.enum(["PreToolUse", "PermissionRequest"]),
  tool_name: z.string().min(1),
  tool_input: z.record(z.string(), z.unknown()),
  tool_use_id: z.string().optional(),
  agent_id: z.string().optional(),
  agent_type: z.string().optional(),
});
export type HookInput = z.infer<typeof HookInput>;

export type HookOutput = { hookSpecificOutput: Record<string, unknown> };

/** Longest excerpt of a command, a diff or an input shown on the card: the message has 4,000 characters. */
const EXCERPT = 1_500;
const DIFF_LINES = 20;

/** One Tollgate session per Claude Code session, titled from its working directory; a sub-agent's in a child session. */
export async function hookSessions(input: HookInput): Promise<{ session: SessionInfo; parent?: SessionInfo }> {
  const main: SessionInfo = { session_id: await idOf("claude-code:", input.session_id), ...(input.cwd ? { title: `Claude Code in ${input.cwd}`.slice(0, 200) } : {}) };
  if (!input.agent_id) return { session: main };
  const child: SessionInfo = {
    session_id: await idOf(`${main.session_id}:`, input.agent_id),
    parent_session_id: main.session_id,
    title: `${input.agent_type ?? "sub-agent"} ${input.agent_id}`.slice(0, 200),
  };
  return { session: child, parent: main };
}

/**
 * The tool call's id, so a rerun of the hook joins the same wait. Without one (a `PermissionRequest`
 * has none) each run asks anew: nothing else tells a rerun from a later call with the same input,
 * and that call must not get the earlier verdict.
 */
export async function hookElicitationId(input: HookInput): Promise<string> {
  const event = input.hook_event_name === "PreToolUse" ? "pre" : "perm";
  return idOf(`claude-code:${event}:`, input.tool_use_id ?? crypto.randomUUID());
}

const text = (value: unknown) => (typeof value === "string" ? value : (JSON.stringify(value, null, 2) ?? ""));
const excerpt = (value: string) => (value.length > EXCERPT ? `${value.slice(0, EXCERPT)}\n…` : value);

function diff(before: unknown, after: unknown): string {
  const lines = [
    ...text(before)
      .split("\n")
      .map((l) => `- ${l}`),
    ...text(after)
      .split("\n")
      .map((l) => `+ ${l}`),
  ];
  const shown = lines.slice(0, DIFF_LINES);
  return excerpt([...shown, ...(lines.length > shown.length ? [`… ${lines.length - shown.length} more lines`] : [])].join("\n"));
}

/** What the tool would do, in the words a human decides on. */
export function describeToolCall(tool: string, input: Record<string, unknown>): string {
  const file = text(input.file_path ?? input.notebook_path ?? "");
  switch (tool) {
    case "Bash":
      return `Run a command${input.description ? ` (${text(input.description)})` : ""}:\n${excerpt(text(input.command))}`;
    case "Edit":
      return `Edit ${file}:\n${diff(input.old_string, input.new_string)}`;
    case "MultiEdit": {
      const edits = Array.isArray(input.edits) ? (input.edits as { old_string?: unknown; new_string?: unknown }[]) : [];
      return `Edit ${file} (${edits.length} changes):\n${excerpt(edits.map((e) => diff(e.old_string, e.new_string)).join("\n"))}`;
    }
    case "Write":
      return `Write ${file} (${text(input.content).split("\n").length} lines):\n${diff("", input.content).replace(/^- \n/, "")}`;
    case "NotebookEdit":
      return `Edit the notebook ${file}:\n${excerpt(text(input.new_source))}`;
    case "WebFetch":
      return `Fetch ${text(input.url)}${input.prompt ? `\nto: ${excerpt(text(input.prompt))}` : ""}`;
    case "WebSearch":
      return `Search the web for: ${text(input.query)}`;
    default:
      return `Use ${tool}:\n${excerpt(text(input))}`;
  }
}

export function hookParams(input: HookInput): ElicitParams {
  const who = input.agent_type ? `Claude Code's ${input.agent_type} sub-agent` : "Claude Code";
  return { message: `${who} wants to: ${describeToolCall(input.tool_name, input.tool_input)}` };
}

export type HookDecision = { behavior: "allow" } | { behavior: "deny"; message: string } | { behavior: "ask" };

/**
 * A verdict as the hook's decision: only a human's accept allows; a timeout follows `onTimeout`.
 * `self`: the `sub` of the hook's own token. The hook cancels its card at its own deadline, so a cancel
 * by `self` is that deadline, read again by a rerun of the hook (or a twin run of it): it answers as
 * a timeout does, not as a cancelled run.
 */
export function decisionOf(verdict: Verdict, onTimeout: "deny" | "ask", timeoutSeconds: number, self?: string): HookDecision {
  if (verdict.action === "accept") return { behavior: "allow" };
  const ownDeadline = verdict.reason === "cancelled" && self !== undefined && verdict.resolved_by === self;
  if (verdict.reason === "timeout" || ownDeadline) return timedOut(onTimeout, timeoutSeconds);
  if (verdict.action === "decline") return { behavior: "deny", message: verdict.message || "Declined by a human in Tollgate." };
  return { behavior: "deny", message: `Cancelled in Tollgate (${whyCancelled(verdict)}).` };
}

export function timedOut(onTimeout: "deny" | "ask", timeoutSeconds: number): HookDecision {
  return onTimeout === "ask" ? { behavior: "ask" } : { behavior: "deny", message: `No verdict from a human in Tollgate within ${timeoutSeconds} s.` };
}

/** The decision in the output shape of the hook event; `undefined` is "print nothing" (Claude Code asks as usual). */
export function hookOutput(event: HookInput["hook_event_name"], decision: HookDecision): HookOutput | undefined {
  if (event === "PreToolUse") {
    const reason = decision.behavior === "deny" ? { permissionDecisionReason: decision.message } : {};
    return { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: decision.behavior, ...reason } };
  }
  if (decision.behavior === "ask") return undefined;
  return { hookSpecificOutput: { hookEventName: "PermissionRequest", decision } };
}
