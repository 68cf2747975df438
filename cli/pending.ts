/** `tollgate pending [--watch]`: sessions awaiting a human, with their badges and prompts; live over `subscribe`. */
import type { Command } from "commander";
import type WebSocket from "ws";
import type * as z from "zod";
import type { BadgeEvent, RequestEventRecord, ResolvedEventRecord, SessionPage, SessionSnapshot } from "../functions/shared/replies.js";
import { call } from "./http.js";
import { note, paint, print, printJson } from "./output.js";
import { settingsOf, type Settings } from "./settings.js";
import { openSocket, request } from "./socket.js";
import { CliError, EXIT } from "./exit.js";

type Snapshot = z.infer<typeof SessionSnapshot>;
type Pushed = z.infer<typeof RequestEventRecord> | z.infer<typeof ResolvedEventRecord> | z.infer<typeof BadgeEvent>;

/** Every session with a pending elicitation, each with its own pending request events. */
async function pendingSessions(settings: Settings): Promise<Snapshot[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const query = `pending=true&limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const page: z.infer<typeof SessionPage> = await call(settings, "GET", `/v1/sessions?${query}`);
    ids.push(...page.sessions.map((s) => s.session_id));
    cursor = page.next_cursor;
  } while (cursor);
  const snapshots = await Promise.all(ids.map((id) => call<Snapshot>(settings, "GET", `/v1/sessions/${encodeURIComponent(id)}`)));
  return snapshots.filter((s) => s.pending_elicitations_count > 0);
}

const badge = (count: number) => paint.yellow(`● ${count}`);

function printSessions(sessions: Snapshot[]) {
  if (sessions.length === 0) return print(paint.dim("nothing awaits a human"));
  for (const s of sessions) {
    print(`${paint.bold(s.session_id)} ${badge(s.pending_elicitations_count)}${s.title ? ` ${paint.dim(s.title)}` : ""}`);
    for (const e of s.pending_elicitations) print(`  ${paint.cyan(e.elicitation_id)}  ${e.params.message}  ${paint.dim(`until ${e.deadline}`)}`);
  }
}

function printEvent(event: Pushed) {
  if (event.type === "session.badge") return print(`${paint.bold(event.session_id)} ${badge(event.pending_elicitations_count)}`);
  if (event.type === "response.elicitation_request") return print(`${paint.yellow("+")} ${paint.bold(event.session_id)} ${paint.cyan(event.elicitation_id)}  ${event.params.message}`);
  const done = event.action === "accept" ? paint.green(event.action) : paint.red(event.action);
  const said = event.message ? `  "${event.message}"` : ""; // the human's words, as the history prints them
  print(`${paint.green("✓")} ${paint.bold(event.session_id)} ${paint.cyan(event.elicitation_id)}  ${done} (${event.reason}, by ${event.resolved_by})${said}`);
}

/** Subscribe first and list after, so nothing raised in between is missed; then print each pushed event. */
async function watch(settings: Settings): Promise<never> {
  const socket: WebSocket = await openSocket(settings);
  const early: Pushed[] = [];
  let show = (event: Pushed) => void early.push(event);
  socket.on("message", (data) => {
    const frame = JSON.parse(data.toString()) as Pushed | { type: string };
    if (["session.badge", "response.elicitation_request", "response.elicitation_resolved"].includes(frame.type)) show(frame as Pushed);
  });
  await request(socket, { action: "subscribe", sessions: "*" });
  const sessions = await pendingSessions(settings);
  if (settings.json) printJson({ sessions });
  else printSessions(sessions);
  show = settings.json ? printJson : printEvent;
  early.forEach(show);
  if (!settings.json) note(paint.dim("watching (Ctrl-C to stop)"));
  return new Promise((_, reject) => socket.once("close", () => reject(new CliError(EXIT.unreachable, `lost the connection to ${settings.wsUrl}`))));
}

export function pendingCommand(program: Command) {
  program
    .command("pending")
    .description("list the sessions awaiting a human, with their badges and pending prompts (human or service token)")
    .option("--watch", "then print every request, verdict and badge as it happens (over the WebSocket)")
    .action(async (o: { watch?: boolean }, command: Command) => {
      const settings = settingsOf(command);
      if (o.watch) return watch(settings);
      const sessions = await pendingSessions(settings);
      if (settings.json) printJson({ sessions });
      else printSessions(sessions);
    });
}
