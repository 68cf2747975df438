/** Runtime configuration of the functions, read from the environment that CDK or the local runtime sets. */
import type { TimerName } from "../catalog.js";
import { env } from "./env.js";
import type { SessionIndexes } from "./tables.js";

export interface Config {
  table: string;
  /** The pair of session indexes `GET /v1/sessions` reads: the previous one only during an upgrade. */
  sessionIndexes: SessionIndexes;
  connectionsUrl: string;
  scheduler: { group: string; roleArn: string; targets: Record<TimerName, string>; deadLetterArn?: string };
  reconnectGraceSeconds: number;
  escalationGraceSeconds: number;
  /** Pause between notice delivery attempts (docs/protocol.md "Lifecycle rules" 4: about 0.5 s). */
  noticeRetryDelayMs: number;
  /** How long resolved elicitations stay readable and in the history before TTL removes them. */
  resolvedRetentionSeconds: number;
  /** Whether resolutions are placed in the history (`GET /v1/history`); off saves their index entry (docs/cost.md). */
  keepsHistory: boolean;
  /** Per token (tenant + sub) and minute; 0 means no limit. */
  rateLimits: RateLimits;
  /** Partitions each tenant's subscriber rows are spread over; every stream batch reads them all side by side. */
  subscriberShards: number;
  /** The OpenID issuers whose tokens are accepted, as TOLLGATE_OIDC_ISSUERS' JSON (none when absent). */
  oidcIssuers?: string;
  notify: NotifyConfig;
  /** Where approval links lead (TOLLGATE_APPROVAL_PAGE_URL); without it a link is its token alone. */
  approvalPageUrl?: string;
}

export interface NotifyConfig {
  /** The pause before each retry; the delivery gives up (and disables its target) after the last. */
  retryDelaysMs: number[];
  timeoutMs: number;
  /** Within this of the newest attempt on its target's `last_attempts`, another goes there only when it starts or ends a run of failures. */
  successRecordMs: number;
  /** How long a function instance keeps the targets it read before it reads them again (notify/known-targets.ts); 0 reads at every use. */
  targetsKeptMs: number;
  /** Local runtime: http to loopback allowed, private addresses allowed. The cloud: https to public addresses only. */
  local: boolean;
}

/**
 * One attempt a second at most on a target's item (besides the failure that starts a run and the success
 * that ends it): a target that hears every event would otherwise write its one item at every attempt
 * (docs/scale.md).
 */
export const SUCCESS_RECORD_INTERVAL_MS = 1_000;

/** 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 12 h: a little more than a day of retries. */
export const defaultRetryDelaysMs = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 43_200_000];

function delays(raw: string | undefined): number[] {
  if (raw === undefined || raw === "") return defaultRetryDelaysMs;
  const list = raw.split(",").map(Number);
  if (list.some((n) => !Number.isFinite(n) || n < 0)) throw new Error(`${env.notifyRetryMs} must be non-negative numbers, comma separated`);
  return list;
}

function pageUrl(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  if (!URL.canParse(raw) || !/^https?:$/.test(new URL(raw).protocol)) throw new Error(`${env.approvalPageUrl} must be an http(s) URL`);
  return raw;
}

export interface RateLimits {
  raisesPerMinute: number;
  verdictsPerMinute: number;
}

/** Generous: an agent fleet behind one token, or a human clearing a queue, stays well below. */
export const defaultRateLimits: RateLimits = { raisesPerMinute: 600, verdictsPerMinute: 600 };

/**
 * Enough for a tenant at 1,000 verdicts a second with up to 16 KB of subscriber rows (docs/scale.md);
 * each more shard costs every stream batch one more Query.
 */
export const DEFAULT_SUBSCRIBER_SHARDS = 4;

/** Long enough to answer "who approved that last quarter?"; longer keeping is an export (docs/deploy.md). */
export const DEFAULT_HISTORY_RETENTION_DAYS = 90;

const number = (source: NodeJS.ProcessEnv, name: string, fallback: number): number => {
  const raw = source[name];
  const value = raw === undefined || raw === "" ? fallback : Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a non-negative number`);
  return value;
};

function onOff(source: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = source[name];
  if (raw === undefined || raw === "") return fallback;
  if (raw !== "on" && raw !== "off") throw new Error(`${name} must be on or off`);
  return raw === "on";
}

function shards(source: NodeJS.ProcessEnv): number {
  const n = number(source, env.subscriberShards, DEFAULT_SUBSCRIBER_SHARDS);
  if (!Number.isInteger(n) || n < 1 || n > 100) throw new Error(`${env.subscriberShards} must be a whole number from 1 to 100`);
  return n;
}

export function readConfig(source: NodeJS.ProcessEnv = process.env): Config {
  return {
    table: source[env.table] ?? "tollgate",
    sessionIndexes: source[env.sessionIndexes] === "previous" ? "previous" : "current",
    connectionsUrl: source[env.connectionsUrl] ?? "",
    scheduler: {
      group: source[env.schedulerGroup] ?? "tollgate",
      roleArn: source[env.schedulerRoleArn] ?? "",
      deadLetterArn: source[env.schedulerDeadLetterArn] || undefined,
      targets: {
        deadline: source[env.timerArn.deadline] ?? "",
        escalation: source[env.timerArn.escalation] ?? "",
        runnerGone: source[env.timerArn.runnerGone] ?? "",
        notify: source[env.timerArn.notify] ?? "",
        reminder: source[env.timerArn.reminder] ?? "",
      },
    },
    reconnectGraceSeconds: number(source, env.reconnectGraceSeconds, 300),
    escalationGraceSeconds: number(source, env.escalationGraceSeconds, 120),
    noticeRetryDelayMs: number(source, env.noticeRetryDelayMs, 500),
    resolvedRetentionSeconds: number(source, env.resolvedRetentionSeconds, number(source, env.historyRetentionDays, DEFAULT_HISTORY_RETENTION_DAYS) * 86_400),
    keepsHistory: onOff(source, env.history, true),
    oidcIssuers: source[env.oidcIssuers] || undefined,
    approvalPageUrl: pageUrl(source[env.approvalPageUrl]),
    subscriberShards: shards(source),
    rateLimits: {
      raisesPerMinute: number(source, env.rateLimitRaisesPerMinute, defaultRateLimits.raisesPerMinute),
      verdictsPerMinute: number(source, env.rateLimitVerdictsPerMinute, defaultRateLimits.verdictsPerMinute),
    },
    notify: {
      retryDelaysMs: delays(source[env.notifyRetryMs]),
      timeoutMs: number(source, env.notifyTimeoutMs, 10_000),
      successRecordMs: number(source, env.notifySuccessRecordMs, SUCCESS_RECORD_INTERVAL_MS),
      targetsKeptMs: number(source, env.notifyTargetsKeptMs, 1_000),
      local: source[env.notifyLocal] === "true",
    },
  };
}
