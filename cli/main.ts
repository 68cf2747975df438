/** The `tollgate` command line: one file per command; every failure is one line and a stable exit code (README "CLI"). */
import { Command, CommanderError, Option } from "commander";
import { answerCommand } from "./answer.js";
import { linkCommand } from "./link.js";
import { askCommand } from "./ask.js";
import { demoCommand } from "./demo.js";
import { historyCommand } from "./history.js";
import { hookCommand } from "./hook.js";
import { mcpCommand } from "./mcp.js";
import { CliError, EXIT } from "./exit.js";
import { openApiCommand } from "./openapi.js";
import { note } from "./output.js";
import { pendingCommand } from "./pending.js";
import { startCommand } from "./start.js";
import { targetsCommand } from "./targets.js";
import { tokenCommand } from "./token.js";

const program = new Command("tollgate")
  .description("Tollgate: a human-in-the-loop control plane for AI agents")
  .addOption(new Option("--url <url>", "Tollgate's HTTP API").env("TOLLGATE_URL").default("http://127.0.0.1:4000"))
  .addOption(new Option("--ws-url <url>", "its WebSocket API (default: <url>/ws, as the local runtime serves it)").env("TOLLGATE_WS_URL"))
  .addOption(new Option("--token <jwt>", "bearer token").env("TOLLGATE_TOKEN"))
  .option("--json", "output for scripts: JSON (one object per line where there are several)")
  .exitOverride()
  .showSuggestionAfterError();

for (const add of [startCommand, tokenCommand, pendingCommand, answerCommand, linkCommand, historyCommand, targetsCommand, askCommand, hookCommand, demoCommand, mcpCommand, openApiCommand])
  add(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  // Commander has already printed its one line (or the help that was asked for).
  if (error instanceof CommanderError) process.exit(error.exitCode === 0 ? EXIT.ok : EXIT.usage);
  note(`tollgate: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(error instanceof CliError ? error.exitCode : EXIT.refused);
}
