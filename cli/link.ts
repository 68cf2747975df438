/** `tollgate link <elicitation-id> [--for name]`: an approval link to share by hand (human or service token). */
import type { Command } from "commander";
import type * as z from "zod";
import type { ApprovalLink } from "../functions/shared/replies.js";
import { call } from "./http.js";
import { print, printJson } from "./output.js";
import { settingsOf } from "./settings.js";

export function linkCommand(program: Command) {
  program
    .command("link")
    .description("an approval link for a pending elicitation: whoever opens it may answer that one prompt, without signing in, until its deadline")
    .argument("<elicitation-id>", "the elicitation, as `tollgate pending` lists it")
    .option("--for <name>", "whom it is for: the verdict it gives is recorded as theirs (default: you)")
    .action(async (elicitationId: string, o: { for?: string }, command: Command) => {
      const settings = settingsOf(command);
      const link = await call<z.infer<typeof ApprovalLink>>(settings, "POST", `/v1/elicitations/${encodeURIComponent(elicitationId)}/link`, o.for ? { for: o.for } : {});
      if (settings.json) return printJson(link);
      print(link.url ?? link.token);
    });
}
