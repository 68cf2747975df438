/**
 * The storage seam: one store per item kind, each owning its keys, expressions and conditions, all
 * over one table. The domain's rules get this as `Deps.db` and speak only in its state changes.
 */
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { sessionIndexesOf, type SessionIndexes } from "../../shared/tables.js";
import { connectionStore } from "./connections.js";
import { elicitationStore } from "./elicitations.js";
import { historyStore } from "./history.js";
import { messageStore } from "./messages.js";
import { rateStore } from "./rates.js";
import { sessionStore } from "./sessions.js";
import { subscriberStore } from "./subscribers.js";
import { targetStore } from "./targets.js";
import { createTable } from "./table.js";

export interface StoreOptions {
  /** Partitions each tenant's subscriber rows are spread over. */
  subscriberShards: number;
  /** Which pair of session indexes the session lists read: the previous one only during an upgrade (docs/deploy.md). */
  sessionIndexes?: SessionIndexes;
}

export function createStores(client: DynamoDBDocumentClient, tableName: string, options: StoreOptions) {
  const table = createTable(client, tableName);
  return {
    elicitations: elicitationStore(table),
    history: historyStore(table),
    sessions: sessionStore(table, sessionIndexesOf(options.sessionIndexes ?? "current")),
    connections: connectionStore(table),
    messages: messageStore(table),
    subscribers: subscriberStore(table, options.subscriberShards),
    rates: rateStore(table),
    targets: targetStore(table),
    /** One transaction over writes the stores built: undefined when it went through, else the writes whose condition did not hold. */
    transact: table.transact,
  };
}
export type Stores = ReturnType<typeof createStores>;
export type { LostConditions, Write } from "./table.js";
