// @ts-check

/** @typedef {import("./types").Verdict} Verdict */

const ACTIONS = { accept: "Accepted", decline: "Declined", cancel: "Cancelled" };
/** @type {Record<string, string>} */
const REASONS = {
  answered: "answered by",
  cancelled: "cancelled by",
  timeout: "deadline passed, resolved by",
  runner_gone: "its runner went away, resolved by",
};

/**
 * The words of a verdict: "Accepted" and "answered by" (then who, then when).
 * @param {Verdict} v
 */
export function verdictWords(v) {
  return {
    action: ACTIONS[v.action] || v.action,
    how: REASONS[v.reason ?? ""] || `${v.reason || "resolved"}, by`,
  };
}
