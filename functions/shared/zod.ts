/**
 * The zod every function's schemas are built with: its mini build, whose functions a bundle keeps
 * only as far as it uses them, with the English messages of the full build switched on. The full
 * build made the verdict's bundle 60 KiB larger and its import about 10 ms longer
 * (docs/cold-starts.md). Import it as a namespace (`import * as z`): a bundler then
 * keeps only the functions named.
 */
import { config } from "zod/mini";
import en from "zod/v4/locales/en.js";

config(en());

export * from "zod/mini";
