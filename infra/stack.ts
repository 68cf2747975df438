/**
 * TollgateStack: the cloud deployment, built from the single sources of truth in functions/
 * (catalog.ts: functions, triggers, grants; shared/tables.ts: the table; shared/env.ts:
 * environment variable names). Nothing here names a route, an action or a key attribute by
 * hand: add a function to the catalog and it gets its Lambda, route or event source, IAM
 * policy, environment and alarms from the parts below.
 *
 * The parts, in dependency order (CloudFormation must see no cycle):
 *   data       table, JWT secret, failure queue
 *   functions  one per catalog entry, each with its own role and log group
 *   schedules  schedule group, scheduler role (invokes the timer functions only), dead-letter queue
 *   WebSocket  API, stage, routes (the API resource itself references no function)
 *   sign-in    the Cognito user pool and its app clients, when `tollgate:cognito` asks for them
 *   bindings   each function's grants and environment: table, @connections from the API id and
 *              the stage's name, schedules, secret, limits, graces
 *   HTTP API, stream event source, alarms, outputs.
 */
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { type CfnElement, CfnOutput, RemovalPolicy, Stack, type StackProps } from "aws-cdk-lib";
import type * as apigwv2 from "aws-cdk-lib/aws-apigatewayv2";
import type * as dynamodb from "aws-cdk-lib/aws-dynamodb";
import type * as iam from "aws-cdk-lib/aws-iam";
import * as logs from "aws-cdk-lib/aws-logs";
import type * as scheduler from "aws-cdk-lib/aws-scheduler";
import type * as secretsmanager from "aws-cdk-lib/aws-secretsmanager";
import type * as sns from "aws-cdk-lib/aws-sns";
import type * as sqs from "aws-cdk-lib/aws-sqs";
import type { Construct } from "constructs";
import type { FunctionName } from "../functions/catalog.js";
import { TollgateAlarms } from "./alarms.js";
import { readConfig, type TollgateConfig } from "./config.js";
import { TollgateData } from "./data.js";
import { TollgateFunctions } from "./functions.js";
import { TollgateHttpApi } from "./http-api.js";
import { StackPart } from "./part.js";
import { TollgateSchedules } from "./schedules.js";
import { TollgateSignIn } from "./sign-in.js";
import type { TollgateFunction } from "./tollgate-function.js";
import { TollgateWebSocketApi } from "./websocket-api.js";

export { webSocketStageName } from "./websocket-api.js";

/** The repository root: the catalog's `entry` paths are relative to it. */
export const repoRoot = path.resolve(fileURLToPath(new URL("..", import.meta.url)));

export interface TollgateStackProps extends StackProps {
  /** Where the catalog's entry files are found. Default: the repository root. */
  sourceRoot?: string;
}

const validRetentions = new Set(Object.values(logs.RetentionDays).filter((v): v is number => typeof v === "number"));

function logRetentionOf(cfg: TollgateConfig): logs.RetentionDays {
  if (!validRetentions.has(cfg.logRetentionDays)) {
    throw new Error(`context tollgate:logRetentionDays: ${cfg.logRetentionDays} is not a CloudWatch Logs retention ` + `(one of ${[...validRetentions].sort((a, b) => a - b).join(", ")})`);
  }
  return cfg.logRetentionDays as logs.RetentionDays;
}

export class TollgateStack extends Stack {
  readonly config: TollgateConfig;
  readonly data: TollgateData;
  readonly lambdas: TollgateFunctions;
  readonly schedules: TollgateSchedules;
  readonly webSocket: TollgateWebSocketApi;
  readonly http: TollgateHttpApi;
  readonly alarms: TollgateAlarms;
  readonly signIn?: TollgateSignIn;

  constructor(scope: Construct, id: string, props: TollgateStackProps = {}) {
    super(scope, id, { description: "Tollgate: human-in-the-loop approvals for AI agents", ...props });
    const cfg = (this.config = readConfig(this.node));
    const logRetention = logRetentionOf(cfg);
    const removalPolicy = cfg.deletionProtection ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
    const kept = { logRetention, removalPolicy };

    this.data = new TollgateData(this, "Data", { config: cfg, removalPolicy });
    this.lambdas = new TollgateFunctions(this, "Functions", { sourceRoot: props.sourceRoot ?? repoRoot, sourceMaps: cfg.sourceMaps, ...kept });
    this.schedules = new TollgateSchedules(this, "Schedules", { timerTargets: this.lambdas.timerTargets });
    this.webSocket = new TollgateWebSocketApi(this, "WebSocket", { config: cfg, functions: this.lambdas, ...kept });
    if (cfg.cognito) this.signIn = new TollgateSignIn(this, "SignIn", { config: cfg.cognito, removalPolicy });
    this.lambdas.bind({
      oidcIssuers: this.oidcIssuers(),
      config: cfg,
      table: this.data.table,
      jwtSecret: this.data.jwtSecret,
      jwtSecretKey: this.data.jwtSecretKey,
      failureQueue: this.data.failureQueue,
      connections: this.webSocket.connections,
      scheduler: this.schedules.binding,
    });
    this.http = new TollgateHttpApi(this, "Http", { config: cfg, functions: this.lambdas, ...kept });
    this.lambdas.readStream(this.data.table, this.data.failureQueue);
    this.alarms = new TollgateAlarms(this, "Alarms", {
      functions: this.lambdas,
      failureQueue: this.data.failureQueue,
      table: this.data.table,
      schedules: this.schedules,
      httpApi: this.http.api,
      alarmEmail: cfg.alarmEmail,
      removalPolicy,
    });
    this.addOutputs();
  }

  /** The issuers the functions accept: the configured ones, and the stack's own user pool. */
  private oidcIssuers(): string | undefined {
    const configured: unknown[] = this.config.oidcIssuers ? JSON.parse(this.config.oidcIssuers) : [];
    if (!this.signIn) return this.config.oidcIssuers;
    return this.toJsonString([...configured, this.signIn.issuerConfig]);
  }

  /** CDK's own logical ids, computed over each path without the parts (see StackPart). */
  protected override allocateLogicalId(element: CfnElement): string {
    const scopes = element.node.scopes.filter((scope) => !(scope instanceof StackPart));
    // Stack.allocateLogicalId reads nothing of the element but its scopes.
    return super.allocateLogicalId({ stack: this, node: { scopes } } as unknown as CfnElement);
  }

  private addOutputs(): void {
    new CfnOutput(this, "HttpUrl", { description: "Base URL of the HTTP API (append /v1/...)", value: this.http.stage.url });
    new CfnOutput(this, "WebSocketUrl", {
      description: "WebSocket API URL for runners and the inbox (wss://...)",
      value: this.webSocket.stage.url,
    });
    new CfnOutput(this, "TableName", { value: this.table.tableName });
    new CfnOutput(this, "JwtSecretArn", {
      description: "Secrets Manager secret whose SecretString is the HS256 token key",
      value: this.jwtSecret.secretArn,
    });
    new CfnOutput(this, "AlarmTopicArn", { value: this.alarmTopic.topicArn });
    new CfnOutput(this, "FailureQueueUrl", { value: this.failureQueue.queueUrl });
    if (this.signIn) {
      new CfnOutput(this, "IssuerUrl", { description: "The user pool's OpenID issuer (the inbox's ?issuer=, tollgate token --issuer)", value: this.signIn.issuer });
      new CfnOutput(this, "InboxClientId", { description: "App client for the inbox (?client_id=)", value: this.signIn.inboxClient.userPoolClientId });
      new CfnOutput(this, "MachineClientId", {
        description: "App client for runners (client credentials; its secret is shown by describe-user-pool-client)",
        value: this.signIn.machineClient.userPoolClientId,
      });
      new CfnOutput(this, "UserPoolId", { value: this.signIn.pool.userPoolId });
    }
  }

  // The parts' main resources, by the names readers and tests look for.
  get table(): dynamodb.Table {
    return this.data.table;
  }
  get jwtSecret(): secretsmanager.ISecret {
    return this.data.jwtSecret;
  }
  get failureQueue(): sqs.Queue {
    return this.data.failureQueue;
  }
  get functions(): Record<FunctionName, TollgateFunction> {
    return this.lambdas.byName;
  }
  get scheduleGroup(): scheduler.ScheduleGroup {
    return this.schedules.group;
  }
  get schedulerRole(): iam.Role {
    return this.schedules.role;
  }
  get webSocketApi(): apigwv2.WebSocketApi {
    return this.webSocket.api;
  }
  get webSocketStage(): apigwv2.WebSocketStage {
    return this.webSocket.stage;
  }
  get httpApi(): apigwv2.HttpApi {
    return this.http.api;
  }
  get httpStage(): apigwv2.HttpStage {
    return this.http.stage;
  }
  get alarmTopic(): sns.Topic {
    return this.alarms.topic;
  }
}
