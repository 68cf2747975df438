/**
 * Deployment knobs, read from CDK context (`cdk.json` or `-c key=value`). Every knob has a
 * default, so `npx cdk deploy` with no context gives a working, protected deployment.
 * docs/deploy.md lists them for operators.
 */
import type { Node } from "constructs";
import { parseIssuers } from "../functions/shared/oidc.js";
import { DEFAULT_HISTORY_RETENTION_DAYS, DEFAULT_SUBSCRIBER_SHARDS } from "../functions/shared/config.js";

export interface TollgateConfig {
  /** Table deletion protection and RETAIN removal policies (`tollgate:deletionProtection`). */
  deletionProtection: boolean;
  /**
   * The step of the session indexes' upgrade to keys-only ones, 1 to 3, for a stack deployed before
   * them (`tollgate:sessionIndexUpgrade`, docs/deploy.md "Upgrading"); absent: the table as defined.
   */
  sessionIndexUpgrade?: 1 | 2 | 3;
  /** An existing Secrets Manager secret holding the HS256 JWT secret (`tollgate:jwtSecretArn`). */
  jwtSecretArn?: string;
  /**
   * The customer managed KMS key that existing secret is encrypted with (`tollgate:jwtSecretKeyArn`):
   * the functions that read the secret may decrypt with it, through Secrets Manager only.
   */
  jwtSecretKeyArn?: string;
  /**
   * OpenID Connect issuers whose tokens the functions accept (`tollgate:oidcIssuers`), as the JSON
   * array docs/security.md describes; checked at synth time with the functions' own parser.
   */
  oidcIssuers?: string;
  /**
   * A Cognito user pool the stack makes for sign-in (`tollgate:cognito`, off by default): an app
   * client for the inbox and one for machines, its issuer added to the accepted ones.
   */
  cognito?: CognitoConfig;
  /** Seconds a runner has to come back before its elicitations resolve runner_gone. */
  reconnectGraceSeconds: number;
  /** Seconds a sub-agent's elicitation may stay pending before its parent is told. */
  escalationGraceSeconds: number;
  /** Days a resolved elicitation stays in the history (and readable) before TTL removes it. */
  historyRetentionDays: number;
  /** Resolutions placed in `GET /v1/history` (`tollgate:history`, on by default); off saves each its index entry. */
  history: boolean;
  /** Per token (tenant + sub) and minute, on the functions that raise or answer; 0 turns a limit off. */
  rateLimits: { raisesPerMinute: number; verdictsPerMinute: number };
  /** Partitions each tenant's inbox subscribers are spread over (docs/scale.md). */
  subscriberShards: number;
  /** How the table and its indexes pay for reads and writes (`tollgate:capacity`, docs/deploy.md "Provisioned capacity"). */
  capacity: CapacityConfig;
  httpThrottle: { rateLimit: number; burstLimit: number };
  wsThrottle: { rateLimit: number; burstLimit: number };
  /** CloudWatch Logs retention of every function and access log group, in days. */
  logRetentionDays: number;
  /**
   * Node maps the functions' stack traces to the TypeScript sources (`tollgate:sourceMaps`, off by
   * default: it makes every cold start read the bundle's source map, infra/bundling.ts).
   */
  sourceMaps: boolean;
  /** Origins the HTTP API answers CORS preflights for (the approval inbox's origin). */
  corsOrigins: string[];
  /**
   * The standalone approval page where the inbox is served (`tollgate:approvalPageUrl`), with
   * `?api=&ws=` naming this stack's endpoints: approval links in notifications open it. Without it a
   * link is its token alone.
   */
  approvalPageUrl?: string;
  /** Subscribe this address to the alarm topic (`tollgate:alarmEmail`). */
  alarmEmail?: string;
  /**
   * Create the account-level API Gateway CloudWatch Logs role and make it the account setting
   * (`tollgate:apiGatewayCloudWatchRole`). Off by default: the setting is account-wide, replaces
   * whatever role other APIs of the account use, and often fails on a first create while the new
   * role propagates.
   */
  apiGatewayCloudWatchRole: boolean;
  /**
   * Access logs of the WebSocket stage (`tollgate:webSocketAccessLogs`). API Gateway refuses them
   * unless the account has its CloudWatch Logs role, so by default they follow
   * `apiGatewayCloudWatchRole`; set true alone when the account already has the role.
   */
  webSocketAccessLogs: boolean;
  /**
   * Identity sources of the `$connect` authorizer (`tollgate:wsIdentitySource`). Empty by
   * default, so a token may come as the Authorization header or as `?token=`: API Gateway
   * refuses a connection that lacks any listed source before the authorizer runs.
   */
  wsIdentitySource: string[];
}

export interface CognitoConfig {
  /** The hosted sign-in domain's prefix, `<prefix>.auth.<region>.amazoncognito.com` (`tollgate:cognitoDomainPrefix`). */
  domainPrefix: string;
  /** Where the inbox is served: its sign-in callback and sign-out URLs (`tollgate:inboxUrls`). */
  inboxUrls: string[];
  /** The one tenant the pool's people and machines belong to (`tollgate:cognitoTenant`). */
  tenant: string;
}

/**
 * On-demand (the default): billed per request, no capacity to plan. Provisioned: billed per hour for
 * the capacity auto scaling holds at its target utilisation, between a floor and a ceiling, the table
 * and each index alike; cheaper per request above about 29% utilisation (docs/cost.md).
 */
export type CapacityConfig = { mode: "on-demand" } | { mode: "provisioned"; writeUnits: UnitRange; readUnits: UnitRange; targetUtilizationPercent: number };
export interface UnitRange {
  min: number;
  max: number;
}

export const contextKeys = {
  deletionProtection: "tollgate:deletionProtection",
  sessionIndexUpgrade: "tollgate:sessionIndexUpgrade",
  jwtSecretArn: "tollgate:jwtSecretArn",
  jwtSecretKeyArn: "tollgate:jwtSecretKeyArn",
  oidcIssuers: "tollgate:oidcIssuers",
  cognito: "tollgate:cognito",
  cognitoDomainPrefix: "tollgate:cognitoDomainPrefix",
  cognitoTenant: "tollgate:cognitoTenant",
  inboxUrls: "tollgate:inboxUrls",
  reconnectGraceSeconds: "tollgate:reconnectGraceSeconds",
  escalationGraceSeconds: "tollgate:escalationGraceSeconds",
  historyRetentionDays: "tollgate:historyRetentionDays",
  history: "tollgate:history",
  rateLimitRaisesPerMinute: "tollgate:rateLimitRaisesPerMinute",
  rateLimitVerdictsPerMinute: "tollgate:rateLimitVerdictsPerMinute",
  subscriberShards: "tollgate:subscriberShards",
  capacity: "tollgate:capacity",
  capacityMinWriteUnits: "tollgate:capacityMinWriteUnits",
  capacityMaxWriteUnits: "tollgate:capacityMaxWriteUnits",
  capacityMinReadUnits: "tollgate:capacityMinReadUnits",
  capacityMaxReadUnits: "tollgate:capacityMaxReadUnits",
  capacityTargetUtilization: "tollgate:capacityTargetUtilization",
  httpThrottleRate: "tollgate:httpThrottleRate",
  httpThrottleBurst: "tollgate:httpThrottleBurst",
  wsThrottleRate: "tollgate:wsThrottleRate",
  wsThrottleBurst: "tollgate:wsThrottleBurst",
  logRetentionDays: "tollgate:logRetentionDays",
  sourceMaps: "tollgate:sourceMaps",
  corsOrigins: "tollgate:corsOrigins",
  approvalPageUrl: "tollgate:approvalPageUrl",
  alarmEmail: "tollgate:alarmEmail",
  apiGatewayCloudWatchRole: "tollgate:apiGatewayCloudWatchRole",
  webSocketAccessLogs: "tollgate:webSocketAccessLogs",
  wsIdentitySource: "tollgate:wsIdentitySource",
} as const;

export const defaults = {
  deletionProtection: true,
  reconnectGraceSeconds: 300,
  escalationGraceSeconds: 120,
  historyRetentionDays: DEFAULT_HISTORY_RETENTION_DAYS,
  history: true,
  rateLimitRaisesPerMinute: 600,
  rateLimitVerdictsPerMinute: 600,
  subscriberShards: DEFAULT_SUBSCRIBER_SHARDS,
  capacity: "on-demand",
  // What an idle provisioned table and each index pay for, and the burst they take before auto scaling reacts.
  capacityMinUnits: 5,
  // A ceiling against a runaway bill, under the account's default quota of 40,000 units a table.
  capacityMaxUnits: 10_000,
  // The console's default target; Application Auto Scaling takes 20 to 90 for DynamoDB.
  capacityTargetUtilization: 70,
  httpThrottleRate: 50,
  httpThrottleBurst: 100,
  wsThrottleRate: 50,
  wsThrottleBurst: 100,
  logRetentionDays: 30,
  sourceMaps: false,
  corsOrigins: ["*"],
  apiGatewayCloudWatchRole: false,
  wsIdentitySource: [] as readonly string[],
} as const;

// Context given on the command line (`-c k=v`) arrives as a string; cdk.json gives JSON values.
function bool(node: Node, key: string, fallback: boolean): boolean {
  const v: unknown = node.tryGetContext(key);
  if (v === undefined || v === null || v === "") return fallback;
  if (typeof v === "boolean") return v;
  const s = String(v).trim().toLowerCase();
  if (["true", "1", "yes", "on"].includes(s)) return true;
  if (["false", "0", "no", "off"].includes(s)) return false;
  throw new Error(`context ${key}: expected true or false, got ${JSON.stringify(v)}`);
}

function int(node: Node, key: string, fallback: number, min: number, max: number): number {
  const v: unknown = node.tryGetContext(key);
  if (v === undefined || v === null || v === "") return fallback;
  const n = typeof v === "number" ? v : Number(String(v).trim());
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new Error(`context ${key}: expected an integer in ${min}..${max}, got ${JSON.stringify(v)}`);
  }
  return n;
}

function str(node: Node, key: string): string | undefined {
  const v: unknown = node.tryGetContext(key);
  if (v === undefined || v === null) return undefined;
  const s = String(v).trim();
  return s === "" ? undefined : s;
}

function list(node: Node, key: string, fallback: readonly string[]): string[] {
  const v: unknown = node.tryGetContext(key);
  if (v === undefined || v === null || v === "") return [...fallback];
  if (Array.isArray(v)) return v.map(String);
  return String(v)
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

const identitySourcePattern = /^(route\.request\.(header|querystring)\.[A-Za-z0-9._-]+|stageVariables\.[A-Za-z0-9._-]+|context\.[A-Za-z0-9._-]+)$/;

function identitySources(node: Node): string[] {
  const sources = list(node, contextKeys.wsIdentitySource, defaults.wsIdentitySource);
  for (const s of sources) {
    if (!identitySourcePattern.test(s)) {
      throw new Error(`context ${contextKeys.wsIdentitySource}: not a WebSocket identity source expression: ${s}`);
    }
  }
  return sources;
}

function jwtSecretSource(node: Node): { jwtSecretArn?: string; jwtSecretKeyArn?: string } {
  const jwtSecretArn = str(node, contextKeys.jwtSecretArn);
  if (jwtSecretArn !== undefined && !/^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:.+$/.test(jwtSecretArn)) {
    throw new Error(`context ${contextKeys.jwtSecretArn}: not a Secrets Manager secret ARN: ${jwtSecretArn}`);
  }
  const jwtSecretKeyArn = str(node, contextKeys.jwtSecretKeyArn);
  // A key ARN, not an alias: IAM authorises KMS calls on the key itself.
  if (jwtSecretKeyArn !== undefined && !/^arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:key\/[A-Za-z0-9-]+$/.test(jwtSecretKeyArn)) {
    throw new Error(`context ${contextKeys.jwtSecretKeyArn}: not a KMS key ARN (arn:aws:kms:REGION:ACCOUNT:key/ID): ${jwtSecretKeyArn}`);
  }
  if (jwtSecretKeyArn !== undefined && jwtSecretArn === undefined) {
    throw new Error(`context ${contextKeys.jwtSecretKeyArn}: only with ${contextKeys.jwtSecretArn} (the generated secret uses the aws/secretsmanager key)`);
  }
  return { jwtSecretArn, jwtSecretKeyArn };
}

/** cdk.json gives the array itself, `-c` a string of JSON. */
function oidcIssuers(node: Node): string | undefined {
  const v: unknown = node.tryGetContext(contextKeys.oidcIssuers);
  if (v === undefined || v === null || v === "") return undefined;
  const json = typeof v === "string" ? v : JSON.stringify(v);
  try {
    parseIssuers(json);
  } catch (error) {
    throw new Error(`context ${contextKeys.oidcIssuers}: ${(error as Error).message}`);
  }
  return json;
}

function approvalPageUrl(node: Node): string | undefined {
  const url = str(node, contextKeys.approvalPageUrl);
  if (url !== undefined && !/^https:\/\/[^\s/]+(\/\S*)?$/.test(url)) throw new Error(`context ${contextKeys.approvalPageUrl}: the approval page's https URL is required, not ${url}`);
  return url;
}

function cognito(node: Node): CognitoConfig | undefined {
  if (!bool(node, contextKeys.cognito, false)) return undefined;
  const domainPrefix = str(node, contextKeys.cognitoDomainPrefix);
  // Cognito's rule for prefixes: lowercase letters, digits and hyphens, not starting or ending with a hyphen.
  if (!domainPrefix || !/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(domainPrefix) || /aws|amazon|cognito/.test(domainPrefix)) {
    throw new Error(`context ${contextKeys.cognitoDomainPrefix}: with ${contextKeys.cognito}, a domain prefix of lowercase letters, digits and hyphens (without aws, amazon or cognito) is required`);
  }
  const inboxUrls = list(node, contextKeys.inboxUrls, []);
  const bad = inboxUrls.find((url) => !/^https:\/\/[^\s/]+(\/\S*)?$/.test(url) && !/^http:\/\/(localhost|127\.0\.0\.1)(:\d+)?(\/\S*)?$/.test(url));
  if (inboxUrls.length === 0 || bad !== undefined) {
    throw new Error(`context ${contextKeys.inboxUrls}: with ${contextKeys.cognito}, the inbox's https URLs (http only on localhost) are required${bad ? `; not one: ${bad}` : ""}`);
  }
  const tenant = str(node, contextKeys.cognitoTenant) ?? "default";
  if (!/^[A-Za-z0-9_.:-]{1,128}$/.test(tenant)) throw new Error(`context ${contextKeys.cognitoTenant}: not a tenant id: ${tenant}`);
  return { domainPrefix, inboxUrls, tenant };
}

function unitRange(node: Node, minKey: string, maxKey: string): UnitRange {
  const min = int(node, minKey, defaults.capacityMinUnits, 1, 40_000);
  const max = int(node, maxKey, Math.max(min, defaults.capacityMaxUnits), 1, 40_000);
  if (max < min) throw new Error(`context ${maxKey}: must be at least ${minKey} (${min}), got ${max}`);
  return { min, max };
}

function capacity(node: Node): CapacityConfig {
  const mode = str(node, contextKeys.capacity) ?? defaults.capacity;
  const unitKeys = [contextKeys.capacityMinWriteUnits, contextKeys.capacityMaxWriteUnits, contextKeys.capacityMinReadUnits, contextKeys.capacityMaxReadUnits, contextKeys.capacityTargetUtilization];
  if (mode === "on-demand") {
    const stray = unitKeys.find((key) => str(node, key) !== undefined);
    if (stray) throw new Error(`context ${stray}: only with ${contextKeys.capacity}=provisioned`);
    return { mode };
  }
  if (mode !== "provisioned") throw new Error(`context ${contextKeys.capacity}: expected on-demand or provisioned, got ${JSON.stringify(mode)}`);
  return {
    mode,
    writeUnits: unitRange(node, contextKeys.capacityMinWriteUnits, contextKeys.capacityMaxWriteUnits),
    readUnits: unitRange(node, contextKeys.capacityMinReadUnits, contextKeys.capacityMaxReadUnits),
    targetUtilizationPercent: int(node, contextKeys.capacityTargetUtilization, defaults.capacityTargetUtilization, 20, 90),
  };
}

export function readConfig(node: Node): TollgateConfig {
  const apiGatewayCloudWatchRole = bool(node, contextKeys.apiGatewayCloudWatchRole, defaults.apiGatewayCloudWatchRole);
  return {
    ...jwtSecretSource(node),
    oidcIssuers: oidcIssuers(node),
    cognito: cognito(node),
    deletionProtection: bool(node, contextKeys.deletionProtection, defaults.deletionProtection),
    sessionIndexUpgrade: (int(node, contextKeys.sessionIndexUpgrade, 0, 0, 3) || undefined) as TollgateConfig["sessionIndexUpgrade"],
    reconnectGraceSeconds: int(node, contextKeys.reconnectGraceSeconds, defaults.reconnectGraceSeconds, 1, 86_400),
    escalationGraceSeconds: int(node, contextKeys.escalationGraceSeconds, defaults.escalationGraceSeconds, 1, 86_400),
    historyRetentionDays: int(node, contextKeys.historyRetentionDays, defaults.historyRetentionDays, 1, 3653),
    history: bool(node, contextKeys.history, defaults.history),
    rateLimits: {
      raisesPerMinute: int(node, contextKeys.rateLimitRaisesPerMinute, defaults.rateLimitRaisesPerMinute, 0, 1_000_000),
      verdictsPerMinute: int(node, contextKeys.rateLimitVerdictsPerMinute, defaults.rateLimitVerdictsPerMinute, 0, 1_000_000),
    },
    subscriberShards: int(node, contextKeys.subscriberShards, defaults.subscriberShards, 1, 100),
    capacity: capacity(node),
    httpThrottle: {
      rateLimit: int(node, contextKeys.httpThrottleRate, defaults.httpThrottleRate, 1, 10_000),
      burstLimit: int(node, contextKeys.httpThrottleBurst, defaults.httpThrottleBurst, 1, 5_000),
    },
    wsThrottle: {
      rateLimit: int(node, contextKeys.wsThrottleRate, defaults.wsThrottleRate, 1, 10_000),
      burstLimit: int(node, contextKeys.wsThrottleBurst, defaults.wsThrottleBurst, 1, 5_000),
    },
    logRetentionDays: int(node, contextKeys.logRetentionDays, defaults.logRetentionDays, 1, 3653),
    sourceMaps: bool(node, contextKeys.sourceMaps, defaults.sourceMaps),
    corsOrigins: list(node, contextKeys.corsOrigins, defaults.corsOrigins),
    approvalPageUrl: approvalPageUrl(node),
    alarmEmail: str(node, contextKeys.alarmEmail),
    apiGatewayCloudWatchRole,
    webSocketAccessLogs: bool(node, contextKeys.webSocketAccessLogs, apiGatewayCloudWatchRole),
    wsIdentitySource: identitySources(node),
  };
}
