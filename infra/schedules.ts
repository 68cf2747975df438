/**
 * EventBridge Scheduler: one schedule group for Tollgate's one-time schedules, the one role
 * Scheduler assumes (from this account and this group only) to invoke the timer functions, and
 * the dead-letter queue a schedule's invocation lands in once Scheduler's retries are spent.
 */
import { RemovalPolicy, Stack } from "aws-cdk-lib";
import * as iam from "aws-cdk-lib/aws-iam";
import type * as lambda from "aws-cdk-lib/aws-lambda";
import * as scheduler from "aws-cdk-lib/aws-scheduler";
import type * as sqs from "aws-cdk-lib/aws-sqs";
import type { Construct } from "constructs";
import type { TimerName } from "../functions/catalog.js";
import { deadLetterQueue } from "./data.js";
import { StackPart } from "./part.js";
import type { SchedulerBinding } from "./tollgate-function.js";

export interface SchedulesProps {
  timerTargets: Record<TimerName, lambda.IFunction>;
}

export class TollgateSchedules extends StackPart {
  readonly group: scheduler.ScheduleGroup;
  readonly role: iam.Role;
  readonly deadLetterQueue: sqs.Queue;
  /** What the functions that create schedules need to know (and be allowed to pass). */
  readonly binding: SchedulerBinding;

  constructor(scope: Construct, id: string, props: SchedulesProps) {
    super(scope, id);
    // Parented at the stack: its generated name derives from its path, and a new name would
    // replace the group and with it every pending schedule.
    this.group = new scheduler.ScheduleGroup(Stack.of(this), "ScheduleGroup", { removalPolicy: RemovalPolicy.DESTROY });
    this.role = new iam.Role(this, "SchedulerRole", {
      description: "Tollgate: EventBridge Scheduler invokes the timer functions with this role",
      assumedBy: new iam.ServicePrincipal("scheduler.amazonaws.com", {
        conditions: {
          StringEquals: {
            "aws:SourceAccount": Stack.of(this).account,
            "aws:SourceArn": this.group.scheduleGroupArn,
          },
        },
      }),
    });
    this.role.addToPolicy(
      new iam.PolicyStatement({
        sid: "InvokeTimers",
        actions: ["lambda:InvokeFunction"],
        resources: Object.values(props.timerTargets).map((f) => f.functionArn),
      }),
    );
    this.deadLetterQueue = deadLetterQueue(
      this,
      "SchedulerDeadLetterQueue",
      "This queue is itself the dead-letter destination of Tollgate's one-time schedules; an alarm fires on " + "its first message. It needs no DLQ of its own.",
    );
    this.role.addToPolicy(
      new iam.PolicyStatement({
        sid: "SendDeadLetters",
        actions: ["sqs:SendMessage"],
        resources: [this.deadLetterQueue.queueArn],
      }),
    );
    this.binding = {
      groupName: this.group.scheduleGroupName,
      role: this.role,
      timerFunctions: props.timerTargets,
      deadLetterArn: this.deadLetterQueue.queueArn,
    };
  }
}
