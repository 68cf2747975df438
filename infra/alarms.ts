/**
 * Alarms, all to one KMS-encrypted SNS topic: the failure queue's first message, every function's
 * errors and throttles, the stream's iterator age, HTTP 5xx answers, requests the table throttled,
 * and Scheduler's target errors, dropped invocations and dead letters. The topic's policy (which
 * replaces SNS's default once it exists) and the key's policy let CloudWatch publish for these
 * alarms only.
 */
import { ArnFormat, Duration, type RemovalPolicy, Stack } from "aws-cdk-lib";
import type * as apigwv2 from "aws-cdk-lib/aws-apigatewayv2";
import * as cloudwatch from "aws-cdk-lib/aws-cloudwatch";
import * as cwActions from "aws-cdk-lib/aws-cloudwatch-actions";
import type * as dynamodb from "aws-cdk-lib/aws-dynamodb";
import * as iam from "aws-cdk-lib/aws-iam";
import * as kms from "aws-cdk-lib/aws-kms";
import * as sns from "aws-cdk-lib/aws-sns";
import * as subscriptions from "aws-cdk-lib/aws-sns-subscriptions";
import type * as sqs from "aws-cdk-lib/aws-sqs";
import { Construct } from "constructs";
import { functions as catalog } from "../functions/catalog.js";
import type { TollgateFunctions } from "./functions.js";
import { StackPart } from "./part.js";
import type { TollgateSchedules } from "./schedules.js";

export interface AlarmsProps {
  functions: TollgateFunctions;
  failureQueue: sqs.IQueue;
  table: dynamodb.ITable;
  schedules: TollgateSchedules;
  httpApi: apigwv2.IHttpApi;
  alarmEmail?: string;
  removalPolicy: RemovalPolicy;
}

const fiveMinutes = Duration.minutes(5);

/**
 * The data operations the functions call on the table, as CloudWatch names them: the catalog's actions,
 * and the transactions that write several of them at once (the stream is read apart).
 */
const tableOperations = [...new Set([...Object.values(catalog).flatMap((f) => f.table), "TransactWriteItems"])];

/**
 * Requests the table throttled, summed over the operations. `SUM(METRICS())` skips an operation that
 * reported nothing, where `a + b + ...` would be missing whenever one of them is (most are, most of the time).
 */
function throttledRequests(table: dynamodb.ITable): cloudwatch.IMetric {
  const perOperation = tableOperations.map((operation) =>
    table.metric("ThrottledRequests", { dimensionsMap: { TableName: table.tableName, Operation: operation }, period: fiveMinutes, statistic: "Sum" }),
  );
  return new cloudwatch.MathExpression({
    expression: "SUM(METRICS())",
    usingMetrics: Object.fromEntries(perOperation.map((metric, i) => [`m${i}`, metric])),
    label: "requests the table throttled, all operations",
    period: fiveMinutes,
  });
}

const atLeastOne = {
  threshold: 1,
  evaluationPeriods: 1,
  comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
  treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
};

export class TollgateAlarms extends StackPart {
  readonly topic: sns.Topic;
  readonly alarms: cloudwatch.Alarm[] = [];
  private readonly action: cwActions.SnsAction;

  constructor(scope: Construct, id: string, props: AlarmsProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const account = stack.account;
    const key = new kms.Key(this, "AlarmKey", {
      description: "Tollgate: encrypts the alarm topic (CloudWatch may use it to publish)",
      enableKeyRotation: true,
      removalPolicy: props.removalPolicy,
    });
    key.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: "CloudWatchAlarmsPublish",
        principals: [new iam.ServicePrincipal("cloudwatch.amazonaws.com")],
        actions: ["kms:Decrypt", "kms:GenerateDataKey*"],
        resources: ["*"],
        conditions: {
          StringEquals: { "aws:SourceAccount": account },
          // The key encrypts this one topic; the topic's policy narrows publishing to its alarms.
          ArnLike: { "aws:SourceArn": stack.formatArn({ service: "cloudwatch", resource: "alarm", resourceName: "*", arnFormat: ArnFormat.COLON_RESOURCE_NAME }) },
        },
      }),
    );
    key.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: "GrantsForAwsServicesOnly",
        effect: iam.Effect.DENY,
        principals: [new iam.AnyPrincipal()],
        actions: ["kms:CreateGrant"],
        resources: ["*"],
        conditions: { BoolIfExists: { "kms:GrantIsForAWSResource": "false", "aws:PrincipalIsAWSService": "false" } },
      }),
    );
    this.topic = new sns.Topic(this, "AlarmTopic", {
      displayName: "Tollgate alarms",
      masterKey: key,
      enforceSSL: true,
    });
    if (props.alarmEmail) this.topic.addSubscription(new subscriptions.EmailSubscription(props.alarmEmail));
    this.action = new cwActions.SnsAction(this.topic);

    this.alarm(this, "FailureQueueAlarm", {
      alarmDescription: "Tollgate: a stream batch or a timer invocation failed after all retries",
      metric: props.failureQueue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: "Maximum" }),
      ...atLeastOne,
    });
    this.functionAlarms(props.functions);
    this.alarm(this, "TableThrottlesAlarm", {
      alarmDescription:
        "Tollgate table: requests throttled (a provisioned table or index at its capacity, or a hot partition); each was tried again, and a call that ran out of tries answered internal_error",
      metric: throttledRequests(props.table),
      ...atLeastOne,
    });
    this.schedulerAlarms(props.schedules);
    this.alarm(this, "HttpServerErrorsAlarm", {
      alarmDescription: "Tollgate HTTP API: 5xx answers",
      metric: props.httpApi.metricServerError({ period: fiveMinutes, statistic: "Sum" }),
      threshold: 5,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    this.allowCloudWatchToPublish(account);
  }

  /** With a topic policy in place SNS's default is gone: CloudWatch may publish for these alarms. */
  private allowCloudWatchToPublish(account: string): void {
    this.topic.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: "CloudWatchAlarmsPublish",
        principals: [new iam.ServicePrincipal("cloudwatch.amazonaws.com")],
        actions: ["sns:Publish"],
        resources: [this.topic.topicArn],
        conditions: {
          StringEquals: { "aws:SourceAccount": account },
          ArnEquals: { "aws:SourceArn": this.alarms.map((a) => a.alarmArn) },
        },
      }),
    );
  }

  /** A schedule that could not invoke its timer, was dropped, or could not even be dead-lettered. */
  private schedulerAlarms(schedules: TollgateSchedules): void {
    const group = schedules.group;
    this.alarm(this, "SchedulerDeadLetterAlarm", {
      alarmDescription: "Tollgate: a schedule's invocation failed all Scheduler retries (its timer never ran)",
      metric: schedules.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: "Maximum" }),
      ...atLeastOne,
    });
    this.alarm(this, "SchedulerTargetErrorsAlarm", {
      alarmDescription: "Tollgate Scheduler: invoking a timer function failed",
      metric: group.metricTargetErrors({ period: fiveMinutes, statistic: "Sum" }),
      ...atLeastOne,
    });
    this.alarm(this, "SchedulerDroppedAlarm", {
      alarmDescription: "Tollgate Scheduler: an invocation was dropped (no retries left and no dead letter)",
      metric: group.metricDropped({ period: fiveMinutes, statistic: "Sum" }),
      ...atLeastOne,
    });
    this.alarm(this, "SchedulerDeadLetterFailedAlarm", {
      alarmDescription: "Tollgate Scheduler: a failed invocation could not be sent to the dead-letter queue",
      metric: group.metricFailedToBeSentToDLQ(undefined, { period: fiveMinutes, statistic: "Sum" }),
      ...atLeastOne,
    });
  }

  private alarm(scope: Construct, id: string, props: cloudwatch.AlarmProps): void {
    const alarm = new cloudwatch.Alarm(scope, id, props);
    alarm.addAlarmAction(this.action);
    this.alarms.push(alarm);
  }

  /** Errors and throttles of every function, and iterator age of the stream readers. */
  private functionAlarms(functions: TollgateFunctions): void {
    const scopes = new Map(functions.all.map((f) => [f, new Construct(this, f.node.id)]));
    for (const [f, scope] of scopes) {
      this.alarm(scope, "ErrorsAlarm", {
        alarmDescription: `Tollgate ${f.name}: invocation errors`,
        metric: f.fn.metricErrors({ period: fiveMinutes, statistic: "Sum" }),
        ...atLeastOne,
      });
      this.alarm(scope, "ThrottlesAlarm", {
        alarmDescription: `Tollgate ${f.name}: throttled invocations`,
        metric: f.fn.metricThrottles({ period: fiveMinutes, statistic: "Sum" }),
        ...atLeastOne,
      });
    }
    for (const f of functions.triggeredBy("stream")) {
      this.alarm(scopes.get(f)!, "IteratorAgeAlarm", {
        alarmDescription: `Tollgate ${f.name}: stream records wait more than a minute`,
        metric: f.fn.metric("IteratorAge", { period: fiveMinutes, statistic: "Maximum" }),
        threshold: 60_000,
        evaluationPeriods: 2,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
    }
  }
}
