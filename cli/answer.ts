/** `tollgate answer <elicitation-id> accept|decline|cancel`: give a verdict as a human. */
import { Argument, type Command } from "commander";
import type * as z from "zod";
import type { Answered, ElicitationRead } from "../functions/shared/replies.js";
import { VerdictAction } from "../functions/shared/schemas.js";
import { CliError, EXIT } from "./exit.js";
import { Refused, call } from "./http.js";
import { paint, print, printJson } from "./output.js";
import { jsonObject, settingsOf } from "./settings.js";

interface AnswerOptions {
  content?: string;
  session?: string;
  message?: string;
}

export function answerCommand(program: Command) {
  program
    .command("answer")
    .description("give the verdict on a pending elicitation (human or service token)")
    .argument("<elicitation-id>", "the elicitation, as `tollgate pending` lists it")
    .addArgument(new Argument("<action>", "the verdict").choices(VerdictAction.options))
    .option("--content <json>", "the form's answers, a JSON object (with accept)")
    .option("--session <id>", "its session (default: looked up from the elicitation)")
    .option("--message <text>", "the human's reason, passed on with the verdict")
    .action(async (elicitationId: string, action: string, o: AnswerOptions, command: Command) => {
      const settings = settingsOf(command);
      const content = o.content === undefined ? undefined : jsonObject(o.content, "--content");
      const id = encodeURIComponent(elicitationId);
      const sessionId = o.session ?? (await call<z.infer<typeof ElicitationRead>>(settings, "GET", `/v1/elicitations/${id}`)).session_id;
      const event = { type: "approval", elicitation_id: elicitationId, action, ...(content ? { content } : {}), ...(o.message !== undefined ? { message: o.message } : {}) };
      let answered: z.infer<typeof Answered>;
      try {
        answered = await call(settings, "POST", `/v1/sessions/${encodeURIComponent(sessionId)}/events`, event);
      } catch (error) {
        const standing = error instanceof Refused ? error.refusal.verdict : undefined;
        if (!standing) throw error;
        const said = standing.message !== undefined ? `: "${standing.message}"` : "";
        throw new CliError(EXIT.refused, `conflict: already resolved ${standing.action} (${standing.reason}) by ${standing.resolved_by} at ${standing.resolved_at}${said}`);
      }
      if (settings.json) return printJson({ ...answered, session_id: sessionId });
      print(`${(answered.action === "accept" ? paint.green : paint.red)(answered.action)} ${paint.cyan(answered.elicitation_id)} in session ${paint.bold(sessionId)}`);
    });
}
