/** Structured JSON logs. Never log tokens or verdict `content` (see docs/security.md). */
import { Logger } from "@aws-lambda-powertools/logger";

export const logger = new Logger({ serviceName: "tollgate", logLevel: (process.env.TOLLGATE_LOG_LEVEL as "INFO" | undefined) ?? "WARN" });
