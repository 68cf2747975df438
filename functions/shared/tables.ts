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
  /**
   * Partitions each tenant-wide index spreads a tenant over (the entry's shard is a hash of the
   * session or elicitation id), so one tenant is not bound by one partition's 1,000 writes a second;
   * a page reads every shard and merges them. Raising it needs no migration (shard 0 is the key of
   * before); lowering it would hide the entries of the dropped shards, so it is no setting.
   */
  indexShards: 4,
  indexes: {
    /**
     * All sessions of a tenant, by session id: `GET /v1/sessions` pagination. Keys only, so the count
     * changing on every raise and verdict never rewrites it; the list reads the sessions it names.
     */
    sessionsByTenant: { name: "session-keys-by-tenant", partitionKey: "tenant_pk", sortKey: "session_sk", projection: "KEYS_ONLY" },
    /** Sparse: only sessions whose pending count is above zero: `GET /v1/sessions?pending=true`. Keys only, as above. */
    pendingSessions: { name: "pending-session-keys", partitionKey: "pending_pk", sortKey: "session_sk", projection: "KEYS_ONLY" },
    /** Sparse: resolved elicitations of a tenant, by `resolved_at#elicitation_id`: `GET /v1/history`, newest first. */
    history: { name: "history-by-tenant", partitionKey: "history_pk", sortKey: "history_sk", projection: "ALL" },
  },
} as const;

/** Every attribute used as a key (all strings). */
export const keyAttributes = ["pk", "sk", "tenant_pk", "session_sk", "pending_pk", "history_pk", "history_sk"] as const;

/**
 * The session indexes of a stack deployed before the keys-only ones (every attribute projected).
 * CloudFormation creates or deletes one index per update and cannot change an index's projection,
 * so an upgrade replaces them over several deploys (`sessionIndexSteps`, docs/deploy.md "Upgrading").
 */
export const previousSessionIndexes = {
  sessionsByTenant: { name: "sessions-by-tenant", partitionKey: "tenant_pk", sortKey: "session_sk", projection: "ALL" },
  pendingSessions: { name: "pending-sessions", partitionKey: "pending_pk", sortKey: "session_sk", projection: "ALL" },
} as const;

/** Which pair of session indexes the functions read. */
export type SessionIndexes = "current" | "previous";
export const sessionIndexesOf = (which: SessionIndexes) => (which === "previous" ? previousSessionIndexes : mainTable.indexes);

/**
 * The indexes each step of the upgrade deploys, and which session indexes the functions read then:
 * each step creates or deletes exactly one index, and the functions move to the new pair only once
 * both exist. The last step is the table as `mainTable` defines it.
 */
export function sessionIndexStep(step: 1 | 2 | 3 | undefined): { indexes: IndexDefinition[]; reads: SessionIndexes } {
  const { sessionsByTenant, pendingSessions, history } = mainTable.indexes;
  const previous = previousSessionIndexes;
  switch (step) {
    case 1:
      return { indexes: [previous.sessionsByTenant, previous.pendingSessions, history, sessionsByTenant], reads: "previous" };
    case 2:
      return { indexes: [previous.sessionsByTenant, previous.pendingSessions, history, sessionsByTenant, pendingSessions], reads: "previous" };
    case 3:
      return { indexes: [previous.pendingSessions, history, sessionsByTenant, pendingSessions], reads: "current" };
    default:
      return { indexes: Object.values(mainTable.indexes), reads: "current" };
  }
}

export type IndexProjection = "ALL" | "KEYS_ONLY";
export interface IndexDefinition {
  name: string;
  partitionKey: string;
  sortKey: string;
  projection: IndexProjection;
}
