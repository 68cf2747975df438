/**
 * Sequential AWS calls on a path: of the calls each of the path's functions made while it ran, the
 * longest chain in which each call starts after the one before it ended, added up along the path. In
 * the cloud each link of that chain is a network round trip, so the count is latency; calls made side
 * by side count once.
 */
import type { AwsCall } from "./calls.js";

export interface PathWindow {
  start: number;
  end: number;
}

/** The longest chain of calls that do not overlap (greedy by end time, which is optimal for intervals). */
export function longestChain(calls: { start: number; end?: number }[]): number {
  const sorted = [...calls].sort((a, b) => (a.end ?? a.start) - (b.end ?? b.start));
  let chain = 0;
  let last = -Infinity;
  for (const c of sorted) {
    if (c.start >= last) {
      chain++;
      last = c.end ?? c.start;
    }
  }
  return chain;
}

/** Per path instance: the calls of `functions` that started inside its window. */
export function callsOnPath(calls: AwsCall[], windows: PathWindow[], functions: readonly string[]) {
  return windows.map((w) => calls.filter((c) => functions.includes(c.fn) && c.start >= w.start && c.start <= w.end));
}

/**
 * A path's chain: the chain of each of its functions, one after the other. A function later on the path
 * reacts to what the one before wrote (a stream record), so its calls follow them in the cloud even where
 * the clock here saw them overlap: the stream poller may read a record while the write's answer is still
 * on its way back through the metering proxy.
 */
export function pathChain(calls: AwsCall[], functions: readonly string[]): number {
  return functions.reduce((sum, fn) => sum + longestChain(calls.filter((c) => c.fn === fn)), 0);
}

/** The typical (median) count of sequential and of all calls over the instances of one path, with the calls themselves named once. */
export function pathCalls(calls: AwsCall[], windows: PathWindow[], functions: readonly string[]) {
  const perInstance = callsOnPath(calls, windows, functions);
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  const chain = (list: AwsCall[]) => pathChain(list, functions);
  const sequential = perInstance.map(chain);
  const typical = perInstance.find((list) => chain(list) === median(sequential)) ?? [];
  return {
    sequential: median(sequential),
    sequentialMax: Math.max(0, ...sequential),
    calls: median(perInstance.map((l) => l.length)),
    functions: [...functions],
    example: typical.sort((a, b) => a.start - b.start).map((c) => `${c.fn} ${c.what}`),
  };
}
