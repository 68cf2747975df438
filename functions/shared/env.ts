/**
 * Names of the environment variables the functions read. CDK sets them on each Lambda from
 * the catalog; the local runtime sets them in its own process before it calls a handler.
 */
export const env = {
  table: "TOLLGATE_TABLE",
  /** Base URL of the `@connections` API: `https://{api}.execute-api.{region}.amazonaws.com/{stage}`. */
  connectionsUrl: "TOLLGATE_CONNECTIONS_URL",
  schedulerGroup: "TOLLGATE_SCHEDULER_GROUP",
  schedulerRoleArn: "TOLLGATE_SCHEDULER_ROLE_ARN",
  /** The SQS queue a one-time schedule's events go to when every retry of its target failed; absent: none. */
  schedulerDeadLetterArn: "TOLLGATE_SCHEDULER_DEAD_LETTER_ARN",
  /** One per timer: the ARN of the function a schedule of that kind targets. */
  timerArn: {
    deadline: "TOLLGATE_DEADLINE_FUNCTION_ARN",
    escalation: "TOLLGATE_ESCALATION_FUNCTION_ARN",
    runnerGone: "TOLLGATE_RUNNER_GONE_FUNCTION_ARN",
    notify: "TOLLGATE_NOTIFY_FUNCTION_ARN",
    reminder: "TOLLGATE_REMINDER_FUNCTION_ARN",
  },
  /** Pauses before each retry of a notification delivery, in milliseconds, comma separated. */
  notifyRetryMs: "TOLLGATE_NOTIFY_RETRY_MS",
  /** How long one delivery attempt may take. */
  notifyTimeoutMs: "TOLLGATE_NOTIFY_TIMEOUT_MS",
  /** A successful attempt is written on its target only when the newest one there is older than this (milliseconds), or failed. */
  notifySuccessRecordMs: "TOLLGATE_NOTIFY_SUCCESS_RECORD_MS",
  /** How long a function instance keeps the notification targets it read (milliseconds); 0: read them at every event and attempt. */
  notifyTargetsKeptMs: "TOLLGATE_NOTIFY_TARGETS_KEPT_MS",
  /** "true" on the local runtime: plain http to loopback and private addresses are allowed. */
  notifyLocal: "TOLLGATE_NOTIFY_LOCAL",
  /** The standalone approval page's address (approval.html, with `?api=&ws=` when served apart from the API): approval links open it. */
  approvalPageUrl: "TOLLGATE_APPROVAL_PAGE_URL",
  /** "previous" while an upgrade has not yet built the keys-only session indexes (docs/deploy.md "Upgrading"); absent: the current ones. */
  sessionIndexes: "TOLLGATE_SESSION_INDEXES",
  jwtSecret: "TOLLGATE_JWT_SECRET",
  /** OpenID Connect issuers whose tokens are accepted: a JSON array (docs/security.md "Sign-in"). */
  oidcIssuers: "TOLLGATE_OIDC_ISSUERS",
  /** Cloud: the Secrets Manager secret that holds the JWT secret (read once per cold start). */
  jwtSecretArn: "TOLLGATE_JWT_SECRET_ARN",
  /** The functions' log level (Powertools: DEBUG, INFO, WARN, ERROR); WARN when absent. */
  logLevel: "TOLLGATE_LOG_LEVEL",
  reconnectGraceSeconds: "TOLLGATE_RECONNECT_GRACE_SECONDS",
  escalationGraceSeconds: "TOLLGATE_ESCALATION_GRACE_SECONDS",
  noticeRetryDelayMs: "TOLLGATE_NOTICE_RETRY_MS",
  /** How long a resolved elicitation stays in the history (and readable), in days; default 90. */
  historyRetentionDays: "TOLLGATE_HISTORY_RETENTION_DAYS",
  /** The same retention in seconds, when set (short retentions, as in tests); it wins over the days. */
  resolvedRetentionSeconds: "TOLLGATE_RESOLVED_RETENTION_SECONDS",
  /** "off": resolutions are not placed in the history and `GET /v1/history` is `not_found`; absent or "on": kept. */
  history: "TOLLGATE_HISTORY",
  /** Elicitations one token (tenant + sub) may raise per minute; 0 turns the limit off. */
  rateLimitRaisesPerMinute: "TOLLGATE_RATE_LIMIT_RAISES_PER_MINUTE",
  /** Verdicts one token (tenant + sub) may give per minute; 0 turns the limit off. */
  rateLimitVerdictsPerMinute: "TOLLGATE_RATE_LIMIT_VERDICTS_PER_MINUTE",
  /** Partitions a tenant's inbox subscribers are spread over (docs/scale.md); default 4. */
  subscriberShards: "TOLLGATE_SUBSCRIBER_SHARDS",
} as const;
