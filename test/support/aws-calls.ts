/**
 * The AWS calls the functions make, seen through a middleware on the SDK clients they call AWS
 * through (a runtime's `clients`, built as functions/lambda/services.ts builds them in Lambda): the SDK's own extension point, so no library internals are
 * patched. The hook sees each call before it is sent, with its input as the code wrote it (a document
 * client's before marshalling) and the function that made it; it may throw to fail the call.
 */
import type { FunctionName } from "../../functions/catalog.js";
import type { Clients } from "../../functions/lambda/services.js";
import { invocation } from "../../local/lambda.js";

export interface AwsCall {
  /** The function whose invocation made the call, if any. */
  fn?: FunctionName;
  client: string;
  /** As the SDK names it: `QueryCommand`, `TransactWriteItemsCommand`, `PostToConnectionCommand`. */
  command: string;
  input: any;
}

type Middleware = (next: (args: { input: unknown }) => Promise<unknown>, context: { clientName?: string; commandName?: string }) => (args: { input: unknown }) => Promise<unknown>;
/** What of a client's middleware stack the hook uses (the SDK's own API). */
type Stack = { add(middleware: Middleware, options: { step: "initialize"; name: string }): void; remove(name: string): boolean };

let observers = 0;

/** Observe every call from now on; the returned function stops observing. */
export function observeAwsCalls(clients: Clients, hook: (call: AwsCall) => void | Promise<void>): () => void {
  const name = `testObserver${++observers}`;
  const stacks = (Object.values(clients) as { middlewareStack: unknown }[]).map((client) => client.middlewareStack as Stack);
  for (const stack of stacks) {
    stack.add(
      (next, context) => async (args) => {
        await hook({ fn: invocation.getStore()?.functionName, client: context.clientName ?? "", command: context.commandName ?? "", input: args.input });
        return next(args);
      },
      { step: "initialize", name },
    );
  }
  return () => {
    for (const stack of stacks) stack.remove(name);
  };
}
