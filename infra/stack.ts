/**
 * TollgateStack: every resource of the cloud deployment, derived from the single sources of
 * truth in functions/ (catalog.ts: functions, triggers, grants; shared/tables.ts: the table;
 * shared/env.ts: environment variable names). Nothing here names a route, an action or a key
 * attribute by hand: add a function to the catalog and it gets its Lambda, route or event
 * source, IAM policy, environment and alarms from this file.
 *
 * Dependency order (CloudFormation must see no cycle):
 *   table, secret, failure queue
 *   -> functions (each with its own role and log group)
 *   -> scheduler group + scheduler role (invoke the timer functions only)
 *   -> WebSocket API + stage  (the API resource itself references no function)
 *   -> bindings: @connections URL/ARN from the API id and the stage name, scheduler env,
 *      routes and integrations (these reference the functions; the functions reference only
 *      the AWS::ApiGatewayV2::Api, never a route or integration, so there is no cycle)
 *   -> HTTP API, stream event source, alarms, outputs.
 */
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps, Validations } from "aws-cdk-lib";
import * as apigw from "aws-cdk-lib/aws-apigateway";
import * as apigwv2 from "aws-cdk-lib/aws-apigatewayv2";
import { WebSocketLambdaAuthorizer } from "aws-cdk-lib/aws-apigatewayv2-authorizers";
import { HttpLambdaIntegration, WebSocketLambdaIntegration } from "aws-cdk-lib/aws-apigatewayv2-integrations";
import * as cloudwatch from "aws-cdk-lib/aws-cloudwatch";
import * as cwActions from "aws-cdk-lib/aws-cloudwatch-actions";
import * as dynamodb from "aws-cdk-lib/aws-dynamodb";
import * as iam from "aws-cdk-lib/aws-iam";
import * as kms from "aws-cdk-lib/aws-kms";
import type * as lambda from "aws-cdk-lib/aws-lambda";
import { StartingPosition } from "aws-cdk-lib/aws-lambda";
import { SqsDestination } from "aws-cdk-lib/aws-lambda-destinations";
import { DynamoEventSource, SqsDlq } from "aws-cdk-lib/aws-lambda-event-sources";
import * as logs from "aws-cdk-lib/aws-logs";
import * as scheduler from "aws-cdk-lib/aws-scheduler";
import * as secretsmanager from "aws-cdk-lib/aws-secretsmanager";
import * as sns from "aws-cdk-lib/aws-sns";
import * as subscriptions from "aws-cdk-lib/aws-sns-subscriptions";
import * as sqs from "aws-cdk-lib/aws-sqs";
import type { Construct } from "constructs";
import {
  type FunctionName,
  type FunctionSpec,
  functions as catalog,
  type TimerName,
  timerFunctions,
} from "../functions/catalog.js";
import { mainTable } from "../functions/shared/tables.js";
import { readConfig, type TollgateConfig } from "./config.js";
import { constructIdFor, TollgateFunction } from "./tollgate-function.js";

/** The repository root: the catalog's `entry` paths are relative to it. */
export const repoRoot = path.resolve(fileURLToPath(new URL("..", import.meta.url)));

/** Stage of the WebSocket API; part of the wss:// URL and of the @connections base URL. */
export const webSocketStageName = "live";

export interface TollgateStackProps extends StackProps {
  /** Where the catalog's entry files are found. Default: the repository root. */
  sourceRoot?: string;
}

const validRetentions = new Set(
  Object.values(logs.RetentionDays).filter((v): v is number => typeof v === "number"),
);

export class TollgateStack extends Stack {
  readonly config: TollgateConfig;
  readonly table: dynamodb.Table;
  readonly functions: Record<FunctionName, TollgateFunction>;
  readonly httpApi: apigwv2.HttpApi;
  readonly httpStage: apigwv2.HttpStage;
  readonly webSocketApi: apigwv2.WebSocketApi;
  readonly webSocketStage: apigwv2.WebSocketStage;
  readonly schedulerRole: iam.Role;
  readonly scheduleGroup: scheduler.ScheduleGroup;
  readonly failureQueue: sqs.Queue;
  readonly jwtSecret: secretsmanager.ISecret;
  readonly alarmTopic: sns.Topic;

  constructor(scope: Construct, id: string, props: TollgateStackProps = {}) {
    super(scope, id, {
      description: "Tollgate: human-in-the-loop approvals for AI agents",
      ...props,
    });
    const cfg = (this.config = readConfig(this.node));
    if (!validRetentions.has(cfg.logRetentionDays)) {
      throw new Error(
        `context tollgate:logRetentionDays: ${cfg.logRetentionDays} is not a CloudWatch Logs retention ` +
          `(one of ${[...validRetentions].sort((a, b) => a - b).join(", ")})`,
      );
    }
    const logRetention = cfg.logRetentionDays as logs.RetentionDays;
    const keep = cfg.deletionProtection ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
    const sourceRoot = props.sourceRoot ?? repoRoot;

    // ---- Data -----------------------------------------------------------------------------
    this.table = new dynamodb.Table(this, mainTable.id, {
      partitionKey: { name: mainTable.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: mainTable.sortKey, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      stream: dynamodb.StreamViewType[mainTable.streamView],
      timeToLiveAttribute: mainTable.timeToLive,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      deletionProtection: cfg.deletionProtection,
      removalPolicy: keep,
    });
    for (const ix of Object.values(mainTable.indexes)) {
      this.table.addGlobalSecondaryIndex({
        indexName: ix.name,
        partitionKey: { name: ix.partitionKey, type: dynamodb.AttributeType.STRING },
        sortKey: { name: ix.sortKey, type: dynamodb.AttributeType.STRING },
        projectionType: dynamodb.ProjectionType.ALL,
      });
    }

    if (cfg.jwtSecretArn) {
      // A complete ARN ends in the 6-character suffix Secrets Manager appends to the name.
      this.jwtSecret = /-[A-Za-z0-9]{6}$/.test(cfg.jwtSecretArn)
        ? secretsmanager.Secret.fromSecretCompleteArn(this, "JwtSecret", cfg.jwtSecretArn)
        : secretsmanager.Secret.fromSecretPartialArn(this, "JwtSecret", cfg.jwtSecretArn);
    } else {
      const secret = new secretsmanager.Secret(this, "JwtSecret", {
        description:
          "Tollgate: HS256 key that bearer tokens are signed with (the SecretString itself is the key)",
        generateSecretString: { passwordLength: 64, excludePunctuation: true, includeSpace: false },
        removalPolicy: keep,
      });
      Validations.of(secret).acknowledge({
        id: "AwsSolutions-SMG4",
        reason:
          "The secret is an HS256 signing key shared with the token issuer: rotating it invalidates every " +
          "token in flight, so rotation is an operator step coordinated with the issuer (docs/deploy.md).",
      });
      this.jwtSecret = secret;
    }

    // Everything that fails after its retries lands here: stream batches (onFailure) and
    // Scheduler's asynchronous timer invocations (Lambda async onFailure destination).
    this.failureQueue = new sqs.Queue(this, "FailureQueue", {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    Validations.of(this.failureQueue).acknowledge({
      id: "AwsSolutions-SQS3",
      reason:
        "This queue is itself the dead-letter destination of the stream event source mapping and of the " +
        "timer functions' asynchronous invokes; an alarm fires on its first message. It needs no DLQ of its own.",
    });

    // ---- Functions, one per catalog entry ------------------------------------------------
    const fns = {} as Record<FunctionName, TollgateFunction>;
    for (const [name, spec] of Object.entries(catalog) as [FunctionName, FunctionSpec][]) {
      fns[name] = new TollgateFunction(this, constructIdFor(name), {
        name,
        spec,
        sourceRoot,
        logRetention,
        removalPolicy: keep,
      });
    }
    this.functions = fns;

    // ---- Scheduler: one group, one role that may invoke the timer functions only ---------
    this.scheduleGroup = new scheduler.ScheduleGroup(this, "ScheduleGroup", { removalPolicy: RemovalPolicy.DESTROY });
    const timerFns = Object.fromEntries(
      (Object.entries(timerFunctions) as [TimerName, FunctionName][]).map(([timer, name]) => [timer, fns[name].fn]),
    ) as unknown as Record<TimerName, lambda.IFunction>;
    this.schedulerRole = new iam.Role(this, "SchedulerRole", {
      description: "Tollgate: EventBridge Scheduler invokes the timer functions with this role",
      assumedBy: new iam.ServicePrincipal("scheduler.amazonaws.com", {
        conditions: {
          StringEquals: {
            "aws:SourceAccount": this.account,
            "aws:SourceArn": this.scheduleGroup.scheduleGroupArn,
          },
        },
      }),
    });
    this.schedulerRole.addToPolicy(
      new iam.PolicyStatement({
        sid: "InvokeTimers",
        actions: ["lambda:InvokeFunction"],
        resources: Object.values(timerFns).map((f) => f.functionArn),
      }),
    );

    // ---- WebSocket API -------------------------------------------------------------------
    this.webSocketApi = new apigwv2.WebSocketApi(this, "WebSocketApi", {
      apiName: `${this.stackName}-ws`,
      description: "Tollgate WebSocket API (PROTOCOL.md: runners and the approval inbox)",
      routeSelectionExpression: "$request.body.action",
    });
    const wsAccessLogs = new logs.LogGroup(this, "WebSocketAccessLogs", {
      retention: logRetention,
      removalPolicy: keep,
    });
    this.webSocketStage = new apigwv2.WebSocketStage(this, "WebSocketStage", {
      webSocketApi: this.webSocketApi,
      stageName: webSocketStageName,
      autoDeploy: true,
      throttle: cfg.wsThrottle,
      accessLogSettings: {
        destination: new apigwv2.LogGroupLogDestination(wsAccessLogs),
        format: apigw.AccessLogFormat.custom(
          JSON.stringify({
            requestId: "$context.requestId",
            connectionId: "$context.connectionId",
            eventType: "$context.eventType",
            routeKey: "$context.routeKey",
            status: "$context.status",
            requestTime: "$context.requestTimeEpoch",
            ip: "$context.identity.sourceIp",
            integrationLatency: "$context.integration.latency",
            error: "$context.error.message",
            authorizerError: "$context.authorizer.error",
          }),
        ),
      },
    });
    if (cfg.apiGatewayCloudWatchRole) {
      // WebSocket (unlike HTTP) API access logging needs the account-level CloudWatch Logs role.
      const cwRole = new iam.Role(this, "ApiGatewayCloudWatchRole", {
        description: "API Gateway account setting: lets API Gateway write WebSocket access logs",
        assumedBy: new iam.ServicePrincipal("apigateway.amazonaws.com"),
        managedPolicies: [
          iam.ManagedPolicy.fromAwsManagedPolicyName("service-role/AmazonAPIGatewayPushToCloudWatchLogs"),
        ],
      });
      // Other APIs of the account may rely on this role once it is the account setting.
      cwRole.applyRemovalPolicy(RemovalPolicy.RETAIN);
      Validations.of(cwRole).acknowledge({
        id: "AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]",
        reason:
          "This is the account-wide role API Gateway assumes to write logs to log groups it creates per API " +
          "and stage; AWS documents this managed policy for exactly that purpose.",
      });
      const account = new apigw.CfnAccount(this, "ApiGatewayAccount", { cloudWatchRoleArn: cwRole.roleArn });
      account.applyRemovalPolicy(RemovalPolicy.RETAIN);
      this.webSocketStage.node.addDependency(account);
    }

    // ---- Bindings: table, @connections, scheduler, JWT secret, rate limits, graces -------
    const jwtSecretArn = this.jwtSecret.secretArn;
    for (const f of Object.values(fns)) {
      const spec = f.spec;
      f.bindTable(this.table, spec.table);
      if (spec.connections) {
        f.bindConnections({
          apiId: this.webSocketApi.apiId,
          stageName: this.webSocketStage.stageName,
          callbackUrl: this.webSocketStage.callbackUrl,
        });
      }
      if (spec.scheduler) {
        f.bindScheduler({
          groupName: this.scheduleGroup.scheduleGroupName,
          role: this.schedulerRole,
          timerFunctions: timerFns,
        });
      }
      if (spec.verifiesTokens) f.bindJwtSecret(this.jwtSecret, jwtSecretArn);
      if (spec.rateLimited) f.setRateLimits(cfg.rateLimits);
      if (spec.scheduler || spec.trigger.kind === "timer") {
        f.setGraces({
          reconnectGraceSeconds: cfg.reconnectGraceSeconds,
          escalationGraceSeconds: cfg.escalationGraceSeconds,
        });
      }
      if (spec.trigger.kind === "timer") {
        // Scheduler invokes asynchronously: two Lambda retries, then the failure queue.
        f.fn.configureAsyncInvoke({
          retryAttempts: 2,
          maxEventAge: Duration.hours(1),
          onFailure: new SqsDestination(this.failureQueue),
        });
      }
    }

    // ---- WebSocket routes ----------------------------------------------------------------
    const authorizerEntry = (Object.entries(fns) as [FunctionName, TollgateFunction][]).find(
      ([, f]) => f.spec.trigger.kind === "ws-authorizer",
    );
    if (!authorizerEntry) throw new Error("catalog has no ws-authorizer function");
    const authorizer = new WebSocketLambdaAuthorizer("ConnectAuthorizer", authorizerEntry[1].fn, {
      authorizerName: `${this.stackName}-connect`,
      // By default no identity source: a token may come as the Authorization header or as
      // ?token= (a browser cannot set headers). Any listed source is mandatory for API Gateway,
      // which would refuse the other form with a bare 401 before our authorizer runs.
      identitySource: cfg.wsIdentitySource,
    });
    for (const f of Object.values(fns)) {
      const trigger = f.spec.trigger;
      if (trigger.kind !== "ws") continue;
      const isConnect = trigger.route === "$connect";
      const lifecycle = isConnect || trigger.route === "$disconnect";
      const route = this.webSocketApi.addRoute(trigger.route, {
        integration: new WebSocketLambdaIntegration(`${constructIdFor(f.name)}Integration`, f.fn),
        authorizer: isConnect ? authorizer : undefined,
        // A frame's direct reply (`hello.ok`, `elicitation.parked`, error frames...) is the
        // handler's returned body. $connect/$disconnect have no client frame to reply to.
        returnResponse: !lifecycle,
      });
      if (!isConnect) {
        Validations.of(route).acknowledge({
          id: "AwsSolutions-APIG4",
          reason:
            "API Gateway runs WebSocket authorizers on $connect only; every later frame of the connection is " +
            "authorised by the $connect authorizer, and handlers check the caller recorded for the connection.",
        });
      }
    }

    // ---- HTTP API ------------------------------------------------------------------------
    this.httpApi = new apigwv2.HttpApi(this, "HttpApi", {
      apiName: `${this.stackName}-http`,
      description: "Tollgate HTTP API (PROTOCOL.md)",
      createDefaultStage: false,
      corsPreflight: {
        allowOrigins: cfg.corsOrigins,
        allowMethods: [
          apigwv2.CorsHttpMethod.GET,
          apigwv2.CorsHttpMethod.PUT,
          apigwv2.CorsHttpMethod.POST,
          apigwv2.CorsHttpMethod.OPTIONS,
        ],
        allowHeaders: ["authorization", "content-type"],
        maxAge: Duration.hours(1),
      },
    });
    const httpAccessLogs = new logs.LogGroup(this, "HttpAccessLogs", { retention: logRetention, removalPolicy: keep });
    this.httpStage = this.httpApi.addStage("HttpStage", {
      stageName: "$default",
      autoDeploy: true,
      throttle: cfg.httpThrottle,
      accessLogSettings: {
        destination: new apigwv2.LogGroupLogDestination(httpAccessLogs),
        format: apigw.AccessLogFormat.custom(
          JSON.stringify({
            requestId: "$context.requestId",
            routeKey: "$context.routeKey",
            status: "$context.status",
            requestTime: "$context.requestTimeEpoch",
            ip: "$context.identity.sourceIp",
            latency: "$context.responseLatency",
            integrationLatency: "$context.integrationLatency",
            integrationError: "$context.integrationErrorMessage",
            responseLength: "$context.responseLength",
          }),
        ),
      },
    });
    for (const f of Object.values(fns)) {
      const trigger = f.spec.trigger;
      if (trigger.kind !== "http") continue;
      this.httpApi.addRoutes({
        path: trigger.path,
        methods: [apigwv2.HttpMethod[trigger.method]],
        integration: new HttpLambdaIntegration(`${constructIdFor(f.name)}Integration`, f.fn, {
          payloadFormatVersion: apigwv2.PayloadFormatVersion.VERSION_2_0,
        }),
      });
    }
    Validations.of(this.httpApi).acknowledge({
      id: "AwsSolutions-APIG4",
      reason:
        "Bearer tokens are verified inside each handler so that refusals keep PROTOCOL.md's " +
        '{"error":{"code":"unauthorized"}} body and codes, which an API Gateway authorizer cannot produce; ' +
        "GET /healthz is public by design.",
    });

    // ---- DynamoDB stream -> streams function ---------------------------------------------
    const streamFns = Object.values(fns).filter((f) => f.spec.trigger.kind === "stream");
    for (const f of streamFns) {
      f.fn.addEventSource(
        new DynamoEventSource(this.table, {
          startingPosition: StartingPosition.TRIM_HORIZON,
          batchSize: 100,
          reportBatchItemFailures: true,
          bisectBatchOnError: true,
          retryAttempts: 5,
          maxRecordAge: Duration.hours(6),
          onFailure: new SqsDlq(this.failureQueue),
        }),
      );
      Validations.of(f.role).acknowledge({
        id: "AwsSolutions-IAM5[Resource::*]",
        reason:
          "dynamodb:ListStreams, which the stream event source mapping needs, supports no resource-level " +
          "permission; the stream's records themselves are readable on this table's stream ARN only.",
      });
    }

    // ---- Alarms --------------------------------------------------------------------------
    const alarmKey = new kms.Key(this, "AlarmKey", {
      description: "Tollgate: encrypts the alarm topic (CloudWatch may use it to publish)",
      enableKeyRotation: true,
      removalPolicy: keep,
    });
    alarmKey.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: "CloudWatchAlarmsPublish",
        principals: [new iam.ServicePrincipal("cloudwatch.amazonaws.com")],
        actions: ["kms:Decrypt", "kms:GenerateDataKey*"],
        resources: ["*"],
        conditions: { StringEquals: { "aws:SourceAccount": this.account } },
      }),
    );
    this.alarmTopic = new sns.Topic(this, "AlarmTopic", {
      displayName: "Tollgate alarms",
      masterKey: alarmKey,
      enforceSSL: true,
    });
    if (cfg.alarmEmail) this.alarmTopic.addSubscription(new subscriptions.EmailSubscription(cfg.alarmEmail));
    const alarmAction = new cwActions.SnsAction(this.alarmTopic);
    const alarm = (scope: Construct, id: string, props: cloudwatch.AlarmProps): void => {
      const a = new cloudwatch.Alarm(scope, id, props);
      a.addAlarmAction(alarmAction);
    };
    const fiveMinutes = Duration.minutes(5);
    const atLeastOne = {
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    };
    alarm(this, "FailureQueueAlarm", {
      alarmDescription: "Tollgate: a stream batch or a timer invocation failed after all retries",
      metric: this.failureQueue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: "Maximum" }),
      ...atLeastOne,
    });
    for (const f of Object.values(fns)) {
      alarm(f, "ErrorsAlarm", {
        alarmDescription: `Tollgate ${f.name}: invocation errors`,
        metric: f.fn.metricErrors({ period: fiveMinutes, statistic: "Sum" }),
        ...atLeastOne,
      });
      alarm(f, "ThrottlesAlarm", {
        alarmDescription: `Tollgate ${f.name}: throttled invocations`,
        metric: f.fn.metricThrottles({ period: fiveMinutes, statistic: "Sum" }),
        ...atLeastOne,
      });
    }
    for (const f of streamFns) {
      alarm(f, "IteratorAgeAlarm", {
        alarmDescription: `Tollgate ${f.name}: stream records wait more than a minute`,
        metric: f.fn.metric("IteratorAge", { period: fiveMinutes, statistic: "Maximum" }),
        threshold: 60_000,
        evaluationPeriods: 2,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
    }
    alarm(this, "HttpServerErrorsAlarm", {
      alarmDescription: "Tollgate HTTP API: 5xx answers",
      metric: this.httpApi.metricServerError({ period: fiveMinutes, statistic: "Sum" }),
      threshold: 5,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });

    // ---- Outputs -------------------------------------------------------------------------
    new CfnOutput(this, "HttpUrl", {
      description: "Base URL of the HTTP API (append /v1/...)",
      value: this.httpStage.url,
    });
    new CfnOutput(this, "WebSocketUrl", {
      description: "WebSocket API URL for runners and the inbox (wss://...)",
      value: this.webSocketStage.url,
    });
    new CfnOutput(this, "TableName", { value: this.table.tableName });
    new CfnOutput(this, "JwtSecretArn", {
      description: "Secrets Manager secret whose SecretString is the HS256 token key",
      value: jwtSecretArn,
    });
    new CfnOutput(this, "AlarmTopicArn", { value: this.alarmTopic.topicArn });
    new CfnOutput(this, "FailureQueueUrl", { value: this.failureQueue.queueUrl });
  }
}
