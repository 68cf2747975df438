/**
 * Tollgate's domain, built by one factory over its dependencies (DynamoDB, `@connections`,
 * Scheduler, a clock). Handlers call it; tests build it over DynamoDB Local and the local
 * stand-ins without any module mocking.
 */
import { createConnections } from "./connections.js";
import { context, type Deps } from "./context.js";
import { createDelivery } from "./delivery.js";
import { createElicitations } from "./elicitations.js";
import { createEscalation } from "./escalation.js";
import { createHistory } from "./history.js";
import { createLinks } from "./links.js";
import { createMessages } from "./messages.js";
import { createDeliveries } from "./notify/deliveries.js";
import { createReminders } from "./notify/reminders.js";
import { createTargets } from "./notify/targets.js";
import { createRateLimiter } from "./rate-limit.js";
import { createReactions } from "./reactions.js";
import { createRunners } from "./runners.js";
import { createSessions } from "./sessions.js";
import { createSubscriptions } from "./subscriptions.js";

export function createTollgate(deps: Deps) {
  const ctx = context(deps);
  const sessions = createSessions(ctx);
  const connections = createConnections(ctx);
  const delivery = createDelivery(ctx, connections.gone);
  const elicitations = createElicitations(ctx, sessions, delivery, createRateLimiter(ctx));
  const history = createHistory(ctx);
  const messages = createMessages(ctx, connections.gone);
  const subscriptions = createSubscriptions(ctx, sessions);
  const escalation = createEscalation(ctx, sessions, messages);
  const runners = createRunners(ctx, sessions, connections, elicitations, messages);
  const links = createLinks(ctx, elicitations);
  const notifications = createDeliveries(ctx, links);
  const reminders = createReminders(ctx, notifications);
  const targets = createTargets(ctx);
  const react = createReactions(ctx, { elicitations, delivery, escalation, messages, connections, runners, notifications, reminders });
  return { ctx, sessions, connections, delivery, elicitations, history, messages, subscriptions, escalation, runners, react, notifications, reminders, targets, links };
}
export type Tollgate = ReturnType<typeof createTollgate>;
