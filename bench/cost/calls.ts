/**
 * Every AWS call a handler makes, and every invocation with its duration, as the local Lambda
 * stand-in runs them in this process. Two public Node seams, nothing inside the SDK: the HTTP client's
 * diagnostics channels (each SDK request, attributed to the function through the stand-in's
 * `invocation` context) and an async hook that times each invocation's handler promise.
 */
import { createHook } from "node:async_hooks";
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import type { ClientRequest, IncomingMessage } from "node:http";
import { invocation, onInvoked } from "../../local/lambda.js";

export interface AwsCall {
  fn: string;
  /** `DynamoDB.GetItem`, `Scheduler.CreateSchedule`, `ApiGateway.PostToConnection` and so on. */
  what: string;
  start: number;
  end?: number;
}

export interface Invocation {
  fn: string;
  start: number;
  end?: number;
}

const clock = () => performance.timeOrigin + performance.now();

/** The AWS service and operation of an SDK request (JSON protocols name it; REST ones by path). */
function operationOf(request: ClientRequest): string {
  const target = request.getHeader("x-amz-target");
  if (typeof target === "string") return `${target.startsWith("DynamoDBStreams") ? "DynamoDBStreams" : "DynamoDB"}.${target.split(".")[1]}`;
  if (request.path.startsWith("/@connections/")) return `ApiGateway.${request.method === "POST" ? "PostToConnection" : request.method === "DELETE" ? "DeleteConnection" : "GetConnection"}`;
  if (request.path.startsWith("/schedules/")) return `Scheduler.${request.method === "POST" ? "CreateSchedule" : request.method === "DELETE" ? "DeleteSchedule" : "GetSchedule"}`;
  return `HTTP.${request.method} ${request.path.split("?")[0]}`;
}

export function traceCalls() {
  const calls: AwsCall[] = [];
  const invocations: Invocation[] = [];
  const open = new WeakMap<ClientRequest, AwsCall>();
  const onStart = ({ request }: { request: ClientRequest }) => {
    const fn = invocation.getStore()?.functionName;
    if (!fn) return; // the stand-ins' own calls (stream reads, checkpoints, schedules) are not the handlers'
    const call: AwsCall = { fn, what: operationOf(request), start: clock() };
    calls.push(call);
    open.set(request, call);
  };
  const onFinish = ({ request }: { request: ClientRequest; response: IncomingMessage }) => {
    const call = open.get(request);
    if (call) call.end = clock();
  };
  // The first promise made inside a new invocation's context is its handler's; it settles when the handler returns.
  const first = new WeakSet<object>();
  const pending = new Map<number, Invocation>();
  const hook = createHook({
    init(asyncId, type) {
      if (type !== "PROMISE") return;
      const store = invocation.getStore();
      if (!store || first.has(store)) return;
      first.add(store);
      const entry = { fn: store.functionName, start: clock() };
      invocations.push(entry);
      pending.set(asyncId, entry);
    },
    promiseResolve(asyncId) {
      const entry = pending.get(asyncId);
      if (!entry) return;
      entry.end = clock();
      pending.delete(asyncId);
    },
  });
  const counted = new Map<string, number>();
  const unhook = onInvoked((name) => counted.set(name, (counted.get(name) ?? 0) + 1));
  subscribe("http.client.request.start", onStart as (m: unknown) => void);
  subscribe("http.client.response.finish", onFinish as (m: unknown) => void);
  hook.enable();
  return {
    calls,
    invocations,
    /** Invocations per function, as the stand-in counted them (each finished one, thrown or not). */
    counted,
    stop() {
      hook.disable();
      unhook();
      unsubscribe("http.client.request.start", onStart as (m: unknown) => void);
      unsubscribe("http.client.response.finish", onFinish as (m: unknown) => void);
    },
  };
}
