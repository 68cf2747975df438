/**
 * The domain built in the test's own process over a running harness's real stand-ins (DynamoDB
 * Local, `@connections`, Scheduler), with any of its seams decorated by the test: the stores, the
 * pusher, the timers, the clock. Hooks sit on the seams' typed methods, so a rename fails to compile
 * instead of silently disabling a hook.
 */
import { connectionsPusher, type Pusher } from "../../functions/domain/push.js";
import { createStores, type Stores } from "../../functions/domain/stores/index.js";
import { schedulerTimers, type Timers } from "../../functions/domain/timers.js";
import { createTollgate } from "../../functions/domain/tollgate.js";
import type { Config } from "../../functions/shared/config.js";
import { linkSigner } from "../../functions/shared/links.js";
import { SECRET, type Harness } from "./tollgate.js";

export interface Decorations {
  db?: (real: Stores) => Stores;
  push?: (real: Pusher) => Pusher;
  timers?: (real: Timers) => Timers;
  config?: Partial<Config>;
  now?: () => number;
  /** What names resolve to, for notification targets. */
  resolve?: (host: string) => Promise<string[]>;
}

export function domainOver(t: Harness, decorate: Decorations = {}) {
  const config = { ...t.runtime.config, ...decorate.config };
  const { db: client, connections, scheduler } = t.runtime.clients;
  const push = connectionsPusher(connections);
  const timers = schedulerTimers(scheduler, config.scheduler);
  const db = createStores(client, config.table, config);
  const same = <T>(real: T) => real;
  return createTollgate({
    db: (decorate.db ?? same)(db),
    config,
    push: (decorate.push ?? same)(push),
    timers: (decorate.timers ?? same)(timers),
    links: linkSigner(async () => new TextEncoder().encode(SECRET), decorate.now ?? t.runtime.clock.now),
    now: decorate.now ?? t.runtime.clock.now,
    ...(decorate.resolve && { resolve: decorate.resolve }),
  });
}
