/** `tollgate history --since 7d [--jsonl]`: the tenant's decisions, newest first, every page of them. */
import { Option, type Command } from "commander";
import type * as z from "zod";
import type { HistoryEntry, HistoryPage } from "../functions/shared/replies.js";
import { NEXT_CURSOR_HEADER, VerdictAction } from "../functions/shared/schemas.js";
import { usageError } from "./exit.js";
import { call, callText } from "./http.js";
import { paint, print, printJson } from "./output.js";
import { settingsOf, wholeNumber, type Settings } from "./settings.js";

interface HistoryOptions {
  since?: string;
  until?: string;
  session?: string;
  descendants?: boolean;
  resolvedBy?: string;
  action?: string;
  limit?: string;
  jsonl?: boolean;
}

const UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `7d`, `12h`, `30m` before now, or an ISO instant as it is. */
export function instant(value: string, flag: string, now = Date.now()): string {
  const ago = /^(\d+)([mhd])$/.exec(value);
  if (ago) return new Date(now - Number(ago[1]) * UNITS[ago[2]]).toISOString();
  const at = Date.parse(value);
  if (!/^\d{4}-\d\d-\d\dT/.test(value) || Number.isNaN(at)) throw usageError(`${flag} takes a duration (30m, 12h, 7d) or an ISO time (2026-12-01T09:00:00Z)`);
  return new Date(at).toISOString();
}

function queryOf(o: HistoryOptions): URLSearchParams {
  const q = new URLSearchParams();
  if (o.since) q.set("since", instant(o.since, "--since"));
  if (o.until) q.set("until", instant(o.until, "--until"));
  if (o.session) q.set("session_id", o.session);
  if (o.descendants) q.set("descendants", "true");
  if (o.resolvedBy) q.set("resolved_by", o.resolvedBy);
  if (o.action) q.set("action", o.action);
  q.set("limit", String(o.limit ? wholeNumber(o.limit, "--limit", 1, 200) : 200));
  return q;
}

/** Every page as JSON lines, passed through as the server wrote them. */
async function exportLines(settings: Settings, query: URLSearchParams) {
  query.set("format", "jsonl");
  for (let cursor: string | null = null; ; ) {
    if (cursor) query.set("cursor", cursor);
    const { text, headers } = await callText(settings, `/v1/history?${query}`);
    if (text) process.stdout.write(text);
    cursor = headers.get(NEXT_CURSOR_HEADER);
    if (!cursor) return;
  }
}

function printEntry(e: z.infer<typeof HistoryEntry>) {
  const v = e.verdict;
  const action = (v.action === "accept" ? paint.green : paint.red)(v.action);
  const said = v.message ? `  "${v.message}"` : "";
  print(`${paint.dim(v.resolved_at)}  ${action} ${paint.cyan(e.elicitation_id)} in ${paint.bold(e.session_id)} by ${v.resolved_by} (${v.reason}, ${v.via})  ${e.params.message}${said}`);
}

export function historyCommand(program: Command) {
  program
    .command("history")
    .description("decisions of the tenant, newest first (human or service token)")
    .option("--since <when>", "resolved since: a duration back from now (30m, 12h, 7d) or an ISO time")
    .option("--until <when>", "resolved before: a duration back from now or an ISO time")
    .option("--session <id>", "only this session's decisions")
    .option("--descendants", "with --session: its sub-agents' decisions too")
    .option("--resolved-by <sub>", "only the verdicts of this `sub` (`tollgate` for deadlines and runners gone)")
    .addOption(new Option("--action <action>", "only this verdict").choices(VerdictAction.options))
    .option("--limit <n>", "entries per request, 1 to 200 (every page is read)")
    .option("--jsonl", "JSON lines as the server exports them, one decision per line")
    .action(async (o: HistoryOptions, command: Command) => {
      const settings = settingsOf(command);
      const query = queryOf(o);
      if (o.jsonl) return exportLines(settings, query);
      for (let cursor: string | null = null; ; ) {
        if (cursor) query.set("cursor", cursor);
        const page: z.infer<typeof HistoryPage> = await call(settings, "GET", `/v1/history?${query}`);
        for (const entry of page.items)
          if (settings.json) printJson(entry);
          else printEntry(entry);
        cursor = page.next_cursor;
        if (!cursor) return;
      }
    });
}
