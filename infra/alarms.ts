/**
 * Alarms, all to one KMS-encrypted SNS topic: the failure queue's first message, every function's
 * errors and throttles, the stream's iterator age, and HTTP 5xx answers.
 */
import { Duration, type RemovalPolicy, Stack } from "aws-cdk-lib";
import type * as apigwv2 from "aws-cdk-lib/aws-apigatewayv2";
import * as cloudwatch from "aws-cdk-lib/aws-cloudwatch";
import * as cwActions from "aws-cdk-lib/aws-cloudwatch-actions";
import * as iam from "aws-cdk-lib/aws-iam";
import * as kms from "aws-cdk-lib/aws-kms";
import * as sns from "aws-cdk-lib/aws-sns";
import * as subscriptions from "aws-cdk-lib/aws-sns-subscriptions";
import type * as sqs from "aws-cdk-lib/aws-sqs";
import { Construct } from "constructs";
import type { TollgateFunctions } from "./functions.js";
import { StackPart } from "./part.js";

export interface AlarmsProps {
  functions: TollgateFunctions;
  failureQueue: sqs.IQueue;
  httpApi: apigwv2.IHttpApi;
  alarmEmail?: string;
  removalPolicy: RemovalPolicy;
}

const fiveMinutes = Duration.minutes(5);
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
    const account = Stack.of(this).account;
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
        conditions: { StringEquals: { "aws:SourceAccount": account } },
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
    this.alarm(this, "HttpServerErrorsAlarm", {
      alarmDescription: "Tollgate HTTP API: 5xx answers",
      metric: props.httpApi.metricServerError({ period: fiveMinutes, statistic: "Sum" }),
      threshold: 5,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
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
