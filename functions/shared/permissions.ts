/** Who may do what (docs/protocol.md "Authentication and tenants"), in one table: the domain enforces it, the OpenAPI document states it. */
import type { Role } from "./schemas.js";

const RUNNER: Role[] = ["runner", "service"];
const HUMAN: Role[] = ["human", "service"];

export const permissions = {
  registerSession: RUNNER,
  raise: RUNNER,
  cancel: RUNNER,
  sendMessage: RUNNER,
  receive: RUNNER,
  answer: HUMAN,
  shareLink: HUMAN,
  read: HUMAN,
  subscribe: HUMAN,
  peek: ["runner", "human", "service"] as Role[],
  manageTargets: ["service"] as Role[],
} as const;

export type Operation = keyof typeof permissions;

/** Each operation in the words a refusal uses: "a human token may not register sessions". */
export const operationWords: Record<Operation, string> = {
  registerSession: "register sessions",
  raise: "raise elicitations",
  cancel: "cancel elicitations",
  sendMessage: "send messages",
  receive: "receive verdicts or messages",
  answer: "answer elicitations",
  shareLink: "share approval links",
  read: "read sessions, elicitations or the history",
  subscribe: "subscribe",
  peek: "peek at sessions",
  manageTargets: "manage notification targets",
};
