/** What every domain module is built over: real clients in Lambda, local endpoints in tests. */
import type { Config } from "../shared/config.js";
import type { LinkSigner } from "../shared/links.js";
import { type Resolve, systemResolve } from "./notify/urls.js";
import type { Pusher } from "./push.js";
import type { Stores } from "./stores/index.js";
import type { Timers } from "./timers.js";

export interface Deps {
  /** The table, through one store per item kind. */
  db: Stores;
  config: Config;
  push: Pusher;
  timers: Timers;
  /** Signs approval links (a key derived from the token secret). */
  links: Pick<LinkSigner, "sign">;
  /** Milliseconds since the epoch; tests may pass their own clock. */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** A name's addresses, for notification targets; tests may pass their own. */
  resolve?: Resolve;
}

export interface Context extends Required<Deps> {
  iso: () => string;
}

export function context(deps: Deps): Context {
  const now = deps.now ?? Date.now;
  return {
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    resolve: systemResolve,
    ...deps,
    now,
    iso: () => new Date(now()).toISOString(),
  };
}
