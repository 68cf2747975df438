/**
 * Plugs Tollgate into an MCP client as the human end of elicitation: a server's
 * `elicitation/create` (form or URL mode) parks on a Tollgate elicitation and its verdict is the
 * MCP result. docs/mcp.md tells the whole story.
 *
 *   import { serveElicitations } from "@tollgate/runner/mcp";
 *   const client = new Client({ name: "agent", version: "1.0.0" });
 *   serveElicitations(client, runner, "conv_42");   // before client.connect(...)
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  ElicitRequestSchema,
  ElicitationCompleteNotificationSchema,
  ErrorCode,
  McpError,
  type ClientCapabilities,
  type ElicitRequest,
  type ElicitResult,
  type ElicitationCompleteNotification,
} from "@modelcontextprotocol/sdk/types.js";
import { TollgateError, type ElicitParams, type FormParams, type TollgateRunner, type Verdict } from "./runner.js";

/** What the bridge serves: both modes of MCP elicitation (2025-11-25). */
export const ELICITATION_CAPABILITY = { elicitation: { form: {}, url: {} } } satisfies ClientCapabilities;

/** The `_meta` key of an MCP result that carries how Tollgate's verdict came. */
export const VERDICT_META = "dev.tollgate/verdict";

export interface McpBridgeOptions {
  /** The deadline of each elicitation (Tollgate's default when absent: one day). */
  timeoutSeconds?: number;
  /**
   * While a human thinks, a request that carries a `progressToken` gets a progress notification
   * this often (default 10 s), so an asker with `resetTimeoutOnProgress` never times it out.
   */
  progressEveryMs?: number;
}

/**
 * The parts of a request handler's context the bridge uses, as the SDK gives them (v1's
 * `RequestHandlerExtra`, or v2's `ctx.mcpReq`). All optional: the handler can also be called bare.
 */
export interface ElicitationContext {
  signal?: AbortSignal;
  _meta?: { progressToken?: string | number };
  sendNotification?: (notification: { method: "notifications/progress"; params: Progress }) => Promise<void>;
  mcpReq?: { signal?: AbortSignal; _meta?: { progressToken?: string | number }; notify?: (notification: { method: string; params?: Progress }) => Promise<void> };
}
type Progress = { progressToken: string | number; progress: number; message?: string };

/** The MCP result of a verdict: a deadline or a vanished runner is `cancel`, never a human's decline. */
export function elicitResult(verdict: Verdict): ElicitResult {
  const action = verdict.action === "decline" && verdict.reason !== "answered" ? "cancel" : verdict.action;
  const { message } = verdict;
  const how = { elicitation_id: verdict.elicitation_id, reason: verdict.reason, ...(message !== undefined ? { message } : {}) };
  const content = action === "accept" && verdict.content ? { content: verdict.content as ElicitResult["content"] } : {};
  return { action, ...content, _meta: { [VERDICT_META]: how } };
}

/** Tollgate's params for an MCP request: exactly what MCP asks, nothing the server did not send. */
function tollgateParams(params: ElicitRequest["params"]): ElicitParams {
  if (params.mode === "url") return { mode: "url", message: params.message, url: params.url, elicitationId: params.elicitationId };
  const { type, properties, required } = params.requestedSchema;
  return { message: params.message, requestedSchema: { type, properties, ...(required ? { required } : {}) } as FormParams["requestedSchema"] };
}

/** Keeps the asker's request alive with progress notifications while it carries a token to hang them on; returns the stop. */
export function keepAlive(context: ElicitationContext | undefined, everyMs: number): () => void {
  const progressToken = context?._meta?.progressToken ?? context?.mcpReq?._meta?.progressToken;
  const send = context?.sendNotification ?? context?.mcpReq?.notify;
  if (progressToken === undefined || !send) return () => undefined;
  let progress = 0;
  const timer = setInterval(() => {
    const params = { progressToken, progress: ++progress, message: "waiting for a human in Tollgate" };
    send({ method: "notifications/progress", params }).catch(() => undefined); // a closed transport ends the wait anyway
  }, everyMs);
  return () => clearInterval(timer);
}

/**
 * The bridge of one session: its elicitation handler, and the completion of URL-mode
 * elicitations the server reports (`notifications/elicitation/complete`).
 */
export class McpElicitationBridge {
  /** URL-mode waits by the asking server's `elicitationId`: its completion closes the card. */
  private readonly urlWaits = new Map<string, AbortController>();

  constructor(
    private readonly runner: TollgateRunner,
    private readonly sessionId: string,
    private readonly options: McpBridgeOptions = {},
  ) {}

  /** The `elicitation/create` handler. A request Tollgate refuses is an MCP `InvalidParams` error naming why. */
  readonly handle = async (request: ElicitRequest, context?: ElicitationContext): Promise<ElicitResult> => {
    const params = request.params;
    // Ends the wait (and closes the card) when the asker gives up or the server reports completion.
    const ended = new AbortController();
    const urlId = params.mode === "url" ? params.elicitationId : undefined;
    if (urlId !== undefined) this.urlWaits.set(urlId, ended);
    const asker = context?.signal ?? context?.mcpReq?.signal;
    const askerGaveUp = () => ended.abort(asker?.reason);
    asker?.addEventListener("abort", askerGaveUp, { once: true });
    const stop = keepAlive(context, this.options.progressEveryMs ?? 10_000);
    try {
      const verdict = await this.runner.elicit({ sessionId: this.sessionId, params: tollgateParams(params), timeoutSeconds: this.options.timeoutSeconds, signal: ended.signal });
      return elicitResult(verdict);
    } catch (error) {
      // The server said the interaction is over: its card closed (cancel/cancelled in Tollgate).
      if (ended.signal.aborted && !asker?.aborted) return { action: "cancel", _meta: { [VERDICT_META]: { reason: "completed" } } };
      if (error instanceof TollgateError && error.code === "bad_request") throw new McpError(ErrorCode.InvalidParams, `Tollgate refused the elicitation: ${error.message}`);
      throw error;
    } finally {
      stop();
      asker?.removeEventListener("abort", askerGaveUp);
      if (urlId !== undefined && this.urlWaits.get(urlId) === ended) this.urlWaits.delete(urlId);
    }
  };

  /** `notifications/elicitation/complete`: a URL-mode card still waiting for consent closes. Unknown ids are ignored, as MCP says. */
  readonly complete = (notification: ElicitationCompleteNotification): void => {
    this.urlWaits.get(notification.params.elicitationId)?.abort();
  };
}

/** The `elicitation/create` handler alone (no URL-mode completion): `client.setRequestHandler(ElicitRequestSchema, handler)`. */
export function mcpElicitationHandler(runner: TollgateRunner, sessionId: string, options: McpBridgeOptions = {}) {
  return new McpElicitationBridge(runner, sessionId, options).handle;
}

/**
 * Makes Tollgate the elicitation end of an MCP client: declares the capability (call it before
 * `client.connect`), answers `elicitation/create` and follows `notifications/elicitation/complete`.
 */
export function serveElicitations(client: Client, runner: TollgateRunner, sessionId: string, options: McpBridgeOptions = {}): McpElicitationBridge {
  const bridge = new McpElicitationBridge(runner, sessionId, options);
  client.registerCapabilities(ELICITATION_CAPABILITY);
  client.setRequestHandler(ElicitRequestSchema, bridge.handle);
  client.setNotificationHandler(ElicitationCompleteNotificationSchema, bridge.complete);
  return bridge;
}
