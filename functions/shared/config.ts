/** Runtime configuration of the functions, read from the environment that CDK or the local runtime sets. */
import type { TimerName } from "../catalog.js";
import { env } from "./env.js";

export interface Config {
  table: string;
  connectionsUrl: string;
  scheduler: { group: string; roleArn: string; targets: Record<TimerName, string>; deadLetterArn?: string };
  reconnectGraceSeconds: number;
  escalationGraceSeconds: number;
  /** Pause between notice delivery attempts (docs/protocol.md "Lifecycle rules" 4: about 0.5 s). */
  noticeRetryDelayMs: number;
  /** How long resolved elicitations stay readable and in the history before TTL removes them. */
  resolvedRetentionSeconds: number;
  /** Per token (tenant + sub) and minute; 0 means no limit. */
  rateLimits: RateLimits;
  /** The OpenID issuers whose tokens are accepted, as TOLLGATE_OIDC_ISSUERS' JSON (none when absent). */
  oidcIssuers?: string;
}

export interface RateLimits {
  raisesPerMinute: number;
  verdictsPerMinute: number;
}

/** Generous: an agent fleet behind one token, or a human clearing a queue, stays well below. */
export const defaultRateLimits: RateLimits = { raisesPerMinute: 600, verdictsPerMinute: 600 };

/** Long enough to answer "who approved that last quarter?"; longer keeping is an export (docs/deploy.md). */
export const DEFAULT_HISTORY_RETENTION_DAYS = 90;

const number = (source: NodeJS.ProcessEnv, name: string, fallback: number): number => {
  const raw = source[name];
  const value = raw === undefined || raw === "" ? fallback : Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a non-negative number`);
  return value;
};

export function readConfig(source: NodeJS.ProcessEnv = process.env): Config {
  return {
    table: source[env.table] ?? "tollgate",
    connectionsUrl: source[env.connectionsUrl] ?? "",
    scheduler: {
      group: source[env.schedulerGroup] ?? "tollgate",
      roleArn: source[env.schedulerRoleArn] ?? "",
      deadLetterArn: source[env.schedulerDeadLetterArn] || undefined,
      targets: {
        deadline: source[env.timerArn.deadline] ?? "",
        escalation: source[env.timerArn.escalation] ?? "",
        runnerGone: source[env.timerArn.runnerGone] ?? "",
      },
    },
    reconnectGraceSeconds: number(source, env.reconnectGraceSeconds, 300),
    escalationGraceSeconds: number(source, env.escalationGraceSeconds, 120),
    noticeRetryDelayMs: number(source, env.noticeRetryDelayMs, 500),
    resolvedRetentionSeconds: number(source, env.resolvedRetentionSeconds, number(source, env.historyRetentionDays, DEFAULT_HISTORY_RETENTION_DAYS) * 86_400),
    oidcIssuers: source[env.oidcIssuers] || undefined,
    rateLimits: {
      raisesPerMinute: number(source, env.rateLimitRaisesPerMinute, defaultRateLimits.raisesPerMinute),
      verdictsPerMinute: number(source, env.rateLimitVerdictsPerMinute, defaultRateLimits.verdictsPerMinute),
    },
  };
}
