/**
 * Every WebSocket the gateway holds is an open file of this process. Past the process's limit
 * (`ulimit -n`) the kernel refuses new connections and their clients see a reset, with nothing in the
 * runtime's log; so the gateway says once when it comes close.
 */
import { readFileSync } from "node:fs";

/** The soft open-file limit of this process (Linux), or undefined where it cannot be read. */
export function openFileLimit(): number | undefined {
  try {
    const line = readFileSync("/proc/self/limits", "utf8")
      .split("\n")
      .find((l) => l.startsWith("Max open files"));
    const soft = Number(line?.split(/\s{2,}/)[1]);
    return Number.isFinite(soft) ? soft : undefined;
  } catch {
    return undefined;
  }
}

/** A check to call with the count of open connections: it logs once when they come within `margin` of the limit. */
export function openFilesWatch(log: (line: string) => void, o: { limit: number | undefined; margin: number } = { limit: openFileLimit(), margin: 200 }): (open: number) => void {
  const { limit, margin } = o;
  let warned = false;
  return (open) => {
    if (warned || limit === undefined || open < limit - margin) return;
    warned = true;
    log(`gateway: ${open} WebSocket connections open, near this process's open file limit of ${limit}; connections past it are refused (raise it with \`ulimit -n\`)`);
  };
}
