/**
 * The one definition of Tollgate's DynamoDB table. CDK (`infra/`) and the local runtime
 * (`local/`) both build the table from this object, so they cannot drift.
 * Key design and access patterns: docs/data-model.md.
 */
export const mainTable = {
  /** CDK construct id and, locally, the default table name. */
  id: "Elicitations",
  partitionKey: "pk",
  sortKey: "sk",
  /** Resolved elicitations, connections and subscriber rows expire through this attribute. */
  timeToLive: "expires_at",
  /** Old and new images: the streams handler acts on transitions (pending -> resolved). */
  streamView: "NEW_AND_OLD_IMAGES",
  indexes: {
    /** All sessions of a tenant, by session id: `GET /v1/sessions` pagination. */
    sessionsByTenant: { name: "sessions-by-tenant", partitionKey: "tenant_pk", sortKey: "session_sk" },
    /** Sparse: only sessions whose pending count is above zero: `GET /v1/sessions?pending=true`. */
    pendingSessions: { name: "pending-sessions", partitionKey: "pending_pk", sortKey: "session_sk" },
    /** Sparse: resolved elicitations of a tenant, by `resolved_at#elicitation_id`: `GET /v1/history`, newest first. */
    history: { name: "history-by-tenant", partitionKey: "history_pk", sortKey: "history_sk" },
  },
} as const;

/** Every attribute used as a key (all strings). */
export const keyAttributes = ["pk", "sk", "tenant_pk", "session_sk", "pending_pk", "history_pk", "history_sk"] as const;
