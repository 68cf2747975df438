// The shapes the inbox reads from the API and the live socket; the form grammar comes from the
// server's own schemas, so the page and the server cannot disagree about it.
import type { ElicitationParams, RequestedSchema, SchemaProperty, VerdictAction } from "../functions/shared/schemas.js";

export type { ElicitationParams, RequestedSchema, SchemaProperty, VerdictAction };

/** What h() takes as children: text or nodes, nested freely; null, undefined and false are skipped. */
export type Child = Node | string | number | boolean | null | undefined | readonly Child[];

export interface Verdict {
  action: VerdictAction;
  content?: Record<string, unknown>;
  /** What the human said with it. */
  message?: string;
  reason?: string;
  resolved_by?: string;
  resolved_at?: string;
}

export interface RequestEvent {
  type: "response.elicitation_request";
  elicitation_id: string;
  session_id: string;
  params: ElicitationParams;
  created_at?: string;
  deadline?: string;
}

export interface ResolvedEvent extends Verdict {
  type: "response.elicitation_resolved";
  elicitation_id: string;
  session_id: string;
}

/** What the pages hear: they subscribe without `session.badge` frames (live.js). */
export type LiveEvent = RequestEvent | ResolvedEvent;

export interface SessionItem {
  session_id: string;
  parent_session_id?: string;
  title?: string;
  pending_elicitations_count: number;
  pending_elicitation_ids?: string[];
  created_at?: string;
  updated_at?: string;
}

export interface SessionDetail extends SessionItem {
  pending_elicitations?: RequestEvent[];
  descendant_pending_elicitations?: RequestEvent[];
}

export interface ElicitationReply {
  elicitation_id: string;
  session_id: string;
  status: "pending" | "resolved";
  event: RequestEvent;
  verdict?: Verdict;
}

export interface HistoryEntry {
  elicitation_id: string;
  session_id: string;
  params: ElicitationParams;
  created_at: string;
  deadline: string;
  verdict: Verdict & { via: "token" | "link" | "deadline" | "runner" };
  decision_ms: number;
}

export interface HistoryPage {
  items: HistoryEntry[];
  next_cursor: string | null;
}

/** The little of a service worker's global scope that sw.js uses (the DOM library has no worker types). */
export interface NotificationWorker {
  registration: ServiceWorkerRegistration;
  clients: {
    claim(): Promise<void>;
    matchAll(options: { type: "window"; includeUncontrolled: boolean }): Promise<{ url: string; focus(): Promise<unknown> }[]>;
    openWindow(url: string): Promise<unknown>;
  };
  skipWaiting(): Promise<void>;
  addEventListener(type: "install", listener: () => void): void;
  addEventListener(type: "activate", listener: (event: { waitUntil(done: Promise<unknown>): void }) => void): void;
  addEventListener(type: "notificationclick", listener: (event: { notification: Notification; waitUntil(done: Promise<unknown>): void }) => void): void;
}
