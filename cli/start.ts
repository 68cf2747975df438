/** `tollgate start`: the local runtime, exactly as `npm start` runs it. */
import type { Command } from "commander";
import { wholeNumber } from "./settings.js";

export function startCommand(program: Command) {
  program
    .command("start")
    .description("run Tollgate on this machine: DynamoDB Local, the HTTP and WebSocket APIs, the inbox (needs Java 17+)")
    .option("--port <port>", "the port (default: $TOLLGATE_PORT or 4000)")
    .option("--data-dir <dir>", "where the database lives (default: $TOLLGATE_DATA_DIR or .tollgate/)")
    .action(async (o: { port?: string; dataDir?: string }) => {
      if (o.port !== undefined) process.env.TOLLGATE_PORT = String(wholeNumber(o.port, "--port", 0, 65_535));
      if (o.dataDir !== undefined) process.env.TOLLGATE_DATA_DIR = o.dataDir;
      await import("../local/main.js");
      await new Promise(() => undefined); // the runtime runs until it is stopped (Ctrl-C)
    });
}
