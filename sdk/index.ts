/** `@tollgate/runner`: the runner client of Tollgate. The MCP adapter is `@tollgate/runner/mcp`. */
export { TollgateRunner, TollgateError } from "./runner.js";
export type { ElicitOptions, ElicitParams, FormParams, Parked, UrlParams, RunnerOptions, SessionInfo, SessionMessage, TokenSource, Transport, Verdict } from "./runner.js";
export { clientCredentials } from "./client-credentials.js";
export type { ClientCredentialsOptions } from "./client-credentials.js";
