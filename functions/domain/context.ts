/** What every domain module is built over: real clients in Lambda, local endpoints in tests. */
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { Config } from "../shared/config.js";
import { tableOps, type TableOps } from "./db.js";
import type { Pusher } from "./push.js";
import type { Timers } from "./timers.js";

export interface Deps {
  db: DynamoDBDocumentClient;
  config: Config;
  push: Pusher;
  timers: Timers;
  /** Milliseconds since the epoch; tests may pass their own clock. */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export interface Context extends Required<Deps> {
  table: string;
  ops: TableOps;
  iso: () => string;
}

export function context(deps: Deps): Context {
  const now = deps.now ?? Date.now;
  return {
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    ...deps,
    now,
    table: deps.config.table,
    ops: tableOps(deps.db, deps.config.table),
    iso: () => new Date(now()).toISOString(),
  };
}
