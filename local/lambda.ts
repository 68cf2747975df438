/**
 * The Lambda runtime's stand-in: loads each function's exported `handler` from its catalog entry
 * and calls it with the event AWS would deliver and a Lambda-shaped context. The context also
 * carries the calling runtime's services (its clients, configuration and clock), which a handler
 * in the cloud builds from its environment instead.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import { dirname, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { functions, type FunctionName } from "../functions/catalog.js";
import type { Services } from "../functions/lambda/services.js";

export const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** Which function is running: lets tests attribute every AWS call to the function that made it. */
export const invocation = new AsyncLocalStorage<{ functionName: FunctionName }>();
let attributing = true;

/**
 * `npm start` attributes nothing: without an AsyncLocalStorage ever entered, Node 20 runs no promise
 * hooks, which otherwise add about a quarter to the CPU of every AWS SDK call the handlers make.
 */
export function attributeInvocations(on: boolean): void {
  attributing = on;
}

type Handler = (event: unknown, context: unknown) => Promise<unknown>;
const loaded = new Map<FunctionName, Promise<Handler>>();

function load(name: FunctionName): Promise<Handler> {
  let handler = loaded.get(name);
  if (!handler) {
    const url = pathToFileURL(resolve(root, functions[name].entry)).href;
    handler = import(url).then((module: { handler: Handler }) => module.handler);
    loaded.set(name, handler);
  }
  return handler;
}

function lambdaContext(name: FunctionName, services: Services) {
  const deadline = Date.now() + 60_000;
  return {
    services,
    functionName: `tollgate-${name}`,
    functionVersion: "$LATEST",
    invokedFunctionArn: functionArn(name),
    memoryLimitInMB: "512",
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/tollgate-${name}`,
    logStreamName: "local",
    callbackWaitsForEmptyEventLoop: false,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  };
}

export const functionArn = (name: FunctionName) => `arn:aws:lambda:us-east-1:000000000000:function:tollgate-${name}`;

export function functionNameOf(arn: string): FunctionName | undefined {
  const name = arn.split(":function:tollgate-")[1];
  return name && name in functions ? (name as FunctionName) : undefined;
}

export type Invoke = <T = unknown>(name: FunctionName, event: unknown) => Promise<T>;

const listeners = new Set<(name: FunctionName, event: unknown) => void>();

/** Hear of every finished invocation of every runtime in this process, with its event (the benchmark counts them); returns the unhook. */
export function onInvoked(listener: (name: FunctionName, event: unknown) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Invoke functions with these services; `done` hears of every finished invocation (the stream poller polls at once: it may have written). */
export function invoker(services: Services, done: (name: FunctionName) => void = () => undefined): Invoke {
  return async <T>(name: FunctionName, event: unknown): Promise<T> => {
    const handler = await load(name);
    try {
      const run = () => handler(event, lambdaContext(name, services));
      return (await (attributing ? invocation.run({ functionName: name }, run) : run())) as T;
    } finally {
      done(name);
      for (const listener of listeners) listener(name, event);
    }
  };
}
