// One cold start: a fresh Node process imports a bundled function and handles one event.
// argv: bundle path, event JSON. Prints one JSON line: import time, first event time, what it answered,
// and whether Node maps stack traces through source maps (started with --enable-source-maps).
const [bundle, eventJson] = process.argv.slice(2);
const startedAt = performance.now(); // ms since this process began
const module = await import(bundle);
const imported = performance.now();
const context = { functionName: "cold", awsRequestId: "cold", getRemainingTimeInMillis: () => 10_000, callbackWaitsForEmptyEventLoop: false };
let outcome;
try {
  const result = await module.handler(JSON.parse(eventJson), context);
  // The refusal's code when there is one (HTTP `error.code`, a WebSocket error frame's `code`): it shows how far the event got.
  const body = typeof result?.body === "string" && result.body.startsWith("{") ? JSON.parse(result.body) : undefined;
  outcome = body?.error?.code ?? body?.code ?? result?.statusCode ?? (result === undefined ? "ok" : "answered");
} catch (error) {
  outcome = `threw ${error?.name ?? "error"}`;
}
const handled = performance.now();
const sourceMaps = process.sourceMapsEnabled;
process.stdout.write(`${JSON.stringify({ processStartMs: startedAt, importMs: imported - startedAt, firstEventMs: handled - imported, outcome, sourceMaps })}\n`);
process.exit(0);
