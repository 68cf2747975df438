#!/usr/bin/env node
// The `tollgate` command. Its TypeScript runs through tsx, so a clone needs no build step.
import { register } from "tsx/esm/api";

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
register();
await import("../cli/main.ts");
