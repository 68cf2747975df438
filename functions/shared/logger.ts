/** Structured JSON logs. Never log tokens or verdict `content` (see docs/security.md). */
import { Logger } from "@aws-lambda-powertools/logger";
import { env } from "./env.js";

export const logger = new Logger({ serviceName: "tollgate", logLevel: (process.env[env.logLevel] as "INFO" | undefined) ?? "WARN" });
