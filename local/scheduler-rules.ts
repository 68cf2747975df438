/**
 * What EventBridge Scheduler's CreateSchedule refuses, refused here the same way: a `ValidationException`
 * (HTTP 400) in the service's own constraint wording, before anything is stored. An empty target ARN
 * (what a function has in the cloud for a timer its catalog entry does not list) is refused, as there.
 */
export interface ScheduleRequest {
  group: string;
  expression: string;
  at: number;
  targetArn: string;
  roleArn: string;
  input: string;
}

/** A request body as JSON gives it: nothing about its members is known until checked. */
type Body = Record<string, unknown>;
const isStructure = (value: unknown): value is Body => typeof value === "object" && value !== null;

const NAME = /^[0-9a-zA-Z\-_.]+$/;
const SQS_ARN = /^arn:aws(-[a-z]+)?:sqs:[a-z0-9-]+:\d{12}:[a-zA-Z0-9\-_]+$/;
const ROLE_ARN = /^arn:aws(-[a-z]+)?:iam::\d{12}:role\/[\w+=,.@/-]+$/;

/** The wording of AWS's request validation ("1 validation error detected: Value ... at ..."). */
const violation = (value: unknown, field: string, constraint: string) => `1 validation error detected: Value '${value}' at '${field}' failed to satisfy constraint: ${constraint}`;

export function parseAt(expression: string): number | undefined {
  const match = /^at\((\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\)$/.exec(expression);
  const at = match ? Date.parse(`${match[1]}Z`) : Number.NaN;
  return Number.isNaN(at) ? undefined : at;
}

function nameProblem(name: string, field: string): string | undefined {
  if (name.length < 1 || name.length > 64) return violation(name, field, "Member must have length less than or equal to 64");
  if (!NAME.test(name)) return violation(name, field, "Member must satisfy regular expression pattern: [0-9a-zA-Z-_.]+");
  return undefined;
}

function rangeProblem(value: unknown, field: string, min: number, max: number): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value)) return violation(value, field, "Member must be an integer");
  if (value < min) return violation(value, field, `Member must have value greater than or equal to ${min}`);
  if (value > max) return violation(value, field, `Member must have value less than or equal to ${max}`);
  return undefined;
}

function lengthProblem(value: string, field: string, min: number, max: number): string | undefined {
  if (value.length < min) return violation(value, field, `Member must have length greater than or equal to ${min}`);
  if (value.length > max) return violation(value, field, `Member must have length less than or equal to ${max}`);
  return undefined;
}

/** Required: `Mode` OFF or FLEXIBLE, and a window of 1 to 1,440 minutes when one is given. */
function windowProblem(window: unknown): string | undefined {
  if (!isStructure(window)) return violation(window, "flexibleTimeWindow", "Member must not be null");
  if (window.Mode !== "OFF" && window.Mode !== "FLEXIBLE") return violation(window.Mode, "flexibleTimeWindow.mode", "Member must satisfy enum value set: [OFF, FLEXIBLE]");
  return rangeProblem(window.MaximumWindowInMinutes, "flexibleTimeWindow.maximumWindowInMinutes", 1, 1440);
}

function targetProblem(target: Body, arn: string, roleArn: string): string | undefined {
  const { RetryPolicy: retry, DeadLetterConfig: dlq } = target;
  const arns =
    lengthProblem(arn, "target.arn", 1, 1600) ??
    lengthProblem(roleArn, "target.roleArn", 1, 1600) ??
    (ROLE_ARN.test(roleArn) ? undefined : violation(roleArn, "target.roleArn", `Member must satisfy regular expression pattern: ${ROLE_ARN.source}`));
  if (arns) return arns;
  if (retry !== undefined && !isStructure(retry)) return violation(retry, "target.retryPolicy", "Member must be a structure");
  if (dlq !== undefined && !isStructure(dlq)) return violation(dlq, "target.deadLetterConfig", "Member must be a structure");
  return (
    rangeProblem(retry?.MaximumEventAgeInSeconds, "target.retryPolicy.maximumEventAgeInSeconds", 60, 86_400) ??
    rangeProblem(retry?.MaximumRetryAttempts, "target.retryPolicy.maximumRetryAttempts", 0, 185) ??
    (dlq !== undefined && (typeof dlq.Arn !== "string" || !SQS_ARN.test(dlq.Arn))
      ? violation(dlq.Arn, "target.deadLetterConfig.arn", `Member must satisfy regular expression pattern: ${SQS_ARN.source}`)
      : undefined)
  );
}

/** A one-time schedule this stand-in can run, or the refusal's message. */
export function validate(name: string, body: Body, now: number): ScheduleRequest | string {
  const group = body.GroupName === undefined ? undefined : String(body.GroupName);
  const problem = nameProblem(name, "name") ?? (group === undefined ? undefined : nameProblem(group, "groupName"));
  if (problem) return problem;
  const expression = String(body.ScheduleExpression ?? "");
  const at = parseAt(expression);
  if (at === undefined) return `Invalid Schedule Expression ${expression}.`;
  // at() has whole seconds: the current second still counts as now, an earlier one has passed.
  if (at < Math.floor(now / 1000) * 1000) return `The ScheduleExpression ${expression} is in the past.`;
  const target = body.Target;
  if (!isStructure(target) || typeof target.Arn !== "string" || typeof target.RoleArn !== "string") {
    return violation(isStructure(target) ? target.Arn : undefined, "target.arn", "Member must not be null");
  }
  const issue = targetProblem(target, target.Arn, target.RoleArn) ?? windowProblem(body.FlexibleTimeWindow);
  if (issue) return issue;
  if (target.Input !== undefined && typeof target.Input !== "string") return violation(target.Input, "target.input", "Member must be a string");
  if (target.Input !== undefined && target.Input.length < 1) return violation(target.Input, "target.input", "Member must have length greater than or equal to 1");
  return { group: group ?? "default", expression, at, targetArn: target.Arn, roleArn: target.RoleArn, input: target.Input ?? "{}" };
}
