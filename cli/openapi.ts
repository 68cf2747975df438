/** `tollgate openapi`: the OpenAPI description that `GET /openapi.json` serves (`npm run openapi` writes docs/openapi.json). */
import { writeFile } from "node:fs/promises";
import type { Command } from "commander";
import { openApiText } from "../functions/shared/openapi.js";
import { note } from "./output.js";

export function openApiCommand(program: Command) {
  program
    .command("openapi")
    .description("print the OpenAPI 3.1 description of the HTTP API")
    .option("--out <file>", "write it to this file instead")
    .action(async (o: { out?: string }) => {
      if (!o.out) return void process.stdout.write(openApiText());
      await writeFile(o.out, openApiText());
      note(`wrote ${o.out}`);
    });
}
