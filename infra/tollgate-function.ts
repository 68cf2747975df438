/**
 * One Tollgate Lambda, built from its catalog entry (functions/catalog.ts): a NodejsFunction
 * bundled by the local esbuild (infra/bundling.ts: ESM, minified, a source map beside it, the AWS
 * SDK bundled so it is tree-shaken), its own log group, and its own role that starts with nothing but the right to
 * write to that log group. Every other permission comes from a `bind*` method that grants
 * exactly what the catalog lists and sets the environment variable the handler reads
 * (functions/shared/env.ts) in the same breath, so a grant and its variable never drift apart.
 */
import * as path from "node:path";
import { Duration, type RemovalPolicy, Stack, Validations } from "aws-cdk-lib";
import type { ITable } from "aws-cdk-lib/aws-dynamodb";
import * as iam from "aws-cdk-lib/aws-iam";
import * as lambda from "aws-cdk-lib/aws-lambda";
import { NodejsFunction, OutputFormat, SourceMapMode } from "aws-cdk-lib/aws-lambda-nodejs";
import * as logs from "aws-cdk-lib/aws-logs";
import type { IKey } from "aws-cdk-lib/aws-kms";
import type { ISecret } from "aws-cdk-lib/aws-secretsmanager";
import { Construct } from "constructs";
import type { DynamoAction, FunctionName, FunctionSpec, TimerName } from "../functions/catalog.js";
import { env } from "../functions/shared/env.js";
import { sessionIndexStep } from "../functions/shared/tables.js";
import { bundleSettings, nodeOptionsFor } from "./bundling.js";
import type { TollgateConfig } from "./config.js";
import { acknowledgeLogGroupChoices, acknowledgeWildcardResource } from "./nag.js";

/** Where the `@connections` API of the WebSocket stage is. */
export interface ConnectionsBinding {
  apiId: string;
  stageName: string;
  callbackUrl: string;
}

/** Tollgate's schedule group, the role its schedules run with, what they invoke, where failures go. */
export interface SchedulerBinding {
  groupName: string;
  role: iam.IRole;
  timerFunctions: Record<TimerName, lambda.IFunction>;
  /** The SQS queue a schedule's invocation lands in once Scheduler's retries are spent. */
  deadLetterArn: string;
}

export interface TollgateFunctionProps {
  name: FunctionName;
  spec: FunctionSpec;
  /** Directory the catalog's `entry` paths are relative to (the repository root). */
  sourceRoot: string;
  logRetention: logs.RetentionDays;
  removalPolicy: RemovalPolicy;
  /** Stack traces mapped to the sources (`tollgate:sourceMaps`), at a cost to every cold start. */
  sourceMaps: boolean;
}

/** Lambda timeout by trigger: streams batches are big, timers retry a notice up to 3 times. */
export function timeoutFor(spec: FunctionSpec): Duration {
  if (spec.trigger.kind === "stream") return Duration.seconds(60);
  if (spec.trigger.kind === "timer") return Duration.seconds(30);
  return Duration.seconds(10);
}

export function memoryFor(spec: FunctionSpec): number {
  return spec.trigger.kind === "stream" ? 512 : 256;
}

/** `wsHello` -> `WsHello`: construct ids, never `Default` or `Resource`. */
export function constructIdFor(name: FunctionName): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

export class TollgateFunction extends Construct {
  readonly name: FunctionName;
  readonly spec: FunctionSpec;
  readonly fn: NodejsFunction;
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: TollgateFunctionProps) {
    super(scope, id);
    this.name = props.name;
    this.spec = props.spec;

    this.logGroup = new logs.LogGroup(this, "Logs", {
      retention: props.logRetention,
      removalPolicy: props.removalPolicy,
    });
    acknowledgeLogGroupChoices(this.logGroup);

    this.role = new iam.Role(this, "Role", {
      assumedBy: new iam.ServicePrincipal("lambda.amazonaws.com"),
      description: `Tollgate ${props.name}: exactly the catalog's grants (functions/catalog.ts)`,
    });
    // Instead of AWSLambdaBasicExecutionRole (any log group in the account): this one only.
    this.role.addToPolicy(
      new iam.PolicyStatement({
        sid: "WriteOwnLogs",
        actions: ["logs:CreateLogStream", "logs:PutLogEvents"],
        resources: [this.logGroup.logGroupArn],
      }),
    );

    const sourceRoot = path.resolve(props.sourceRoot);
    const nodeOptions = nodeOptionsFor(props.sourceMaps);
    this.fn = new NodejsFunction(this, "Function", {
      description: `Tollgate ${props.name} (${props.spec.entry})`,
      entry: path.join(sourceRoot, props.spec.entry),
      handler: "handler",
      projectRoot: sourceRoot,
      depsLockFilePath: path.join(sourceRoot, "package-lock.json"),
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: memoryFor(props.spec),
      timeout: timeoutFor(props.spec),
      role: this.role,
      logGroup: this.logGroup,
      environment: {
        ...(nodeOptions.length > 0 ? { NODE_OPTIONS: nodeOptions.join(" ") } : {}),
        POWERTOOLS_SERVICE_NAME: "tollgate",
      },
      bundling: {
        forceDockerBundling: false,
        format: OutputFormat.ESM,
        target: "node22",
        minify: bundleSettings.minify,
        sourceMap: bundleSettings.sourcemap,
        sourceMapMode: SourceMapMode.DEFAULT,
        sourcesContent: bundleSettings.sourcesContent,
        mainFields: [...bundleSettings.mainFields],
        // Bundle every @aws-sdk package we use instead of the runtime's copy: one pinned
        // version everywhere, and esbuild drops what the handler does not call.
        bundleAwsSDK: true,
        externalModules: [],
        banner: bundleSettings.banner,
        tsconfig: path.join(sourceRoot, "tsconfig.json"),
      },
    });
    Validations.of(this.fn).acknowledge(
      {
        id: "AwsSolutions-L1",
        reason:
          "Node.js 22 is deliberate: bundles target node22 and the handlers are tested on this repository's " +
          "Node 20/22 toolchain; moving to a newer runtime is a tested change of its own, not drift.",
      },
      {
        id: "cdk-validator-cfnguard::lambda_inside_vpc_check",
        reason:
          "The functions reach only AWS APIs (DynamoDB, Scheduler, API Gateway, Secrets Manager) over TLS with " +
          "IAM, and configured OpenID issuers' key sets over HTTPS; a VPC would add NAT, endpoints and cold-start " +
          "cost, and protect nothing they hold.",
      },
    );
  }

  get functionArn(): string {
    return this.fn.functionArn;
  }

  private addEnv(key: string, value: string): void {
    this.fn.addEnvironment(key, value);
  }

  /**
   * `dynamodb:<Action>` for exactly the listed actions on the table, and `dynamodb:Query` on its
   * two indexes (by name, no wildcard) when Query is listed. TransactWriteItems needs no action
   * of its own: it is authorised by the Put/Update/Delete/ConditionCheckItem it contains.
   */
  bindTable(table: ITable, actions: readonly DynamoAction[], upgrade?: TollgateConfig["sessionIndexUpgrade"]): void {
    if (actions.length === 0) return;
    this.addEnv(env.table, table.tableName);
    const step = sessionIndexStep(upgrade);
    this.role.addToPolicy(
      new iam.PolicyStatement({
        sid: "Table",
        actions: [...new Set(actions)].sort().map((a) => `dynamodb:${a}`),
        resources: [table.tableArn],
      }),
    );
    if (actions.includes("Query")) {
      this.role.addToPolicy(
        new iam.PolicyStatement({
          sid: "TableIndexes",
          actions: ["dynamodb:Query"],
          resources: step.indexes.map((ix) => `${table.tableArn}/index/${ix.name}`),
        }),
      );
      if (step.reads === "previous") this.addEnv(env.sessionIndexes, step.reads);
    }
  }

  /** `execute-api:ManageConnections` for POST on `@connections` of this one stage. */
  bindConnections(props: ConnectionsBinding, methods: { post: boolean; delete: boolean }): void {
    const stack = Stack.of(this);
    this.addEnv(env.connectionsUrl, props.callbackUrl);
    const verbs = [...(methods.post ? ["POST"] : []), ...(methods.delete ? ["DELETE"] : [])];
    const resources = verbs.map((verb) => stack.formatArn({ service: "execute-api", resource: props.apiId, resourceName: `${props.stageName}/${verb}/@connections/*` }));
    this.role.addToPolicy(
      new iam.PolicyStatement({
        sid: methods.delete ? "ManageConnections" : "PostToConnections",
        actions: ["execute-api:ManageConnections"],
        resources,
      }),
    );
    for (const resource of resources) {
      acknowledgeWildcardResource(
        this.role,
        resource,
        "Connection ids are minted by API Gateway at run time; the grant is POST (and, where a token's expiry closes " + "the connection, DELETE) to @connections of this one API and stage only.",
      );
    }
  }

  /**
   * Create, read and delete the one-time schedules of Tollgate's group (names are minted at run
   * time, hence the `/*`), pass exactly the scheduler role to them, and know the functions that
   * the schedules of its `timers` invoke.
   */
  bindScheduler(props: SchedulerBinding, timers: readonly TimerName[]): void {
    const stack = Stack.of(this);
    this.addEnv(env.schedulerGroup, props.groupName);
    this.addEnv(env.schedulerRoleArn, props.role.roleArn);
    this.addEnv(env.schedulerDeadLetterArn, props.deadLetterArn);
    for (const timer of timers) {
      const fn = props.timerFunctions[timer];
      // A function's own ARN in its environment would be a cycle: it reads it from its invocation.
      if (fn !== this.fn) this.addEnv(env.timerArn[timer], fn.functionArn);
    }
    const schedules = stack.formatArn({
      service: "scheduler",
      resource: "schedule",
      resourceName: `${props.groupName}/*`,
    });
    this.role.addToPolicy(
      new iam.PolicyStatement({
        sid: "Schedules",
        actions: ["scheduler:CreateSchedule", "scheduler:DeleteSchedule", "scheduler:GetSchedule"],
        resources: [schedules],
      }),
    );
    acknowledgeWildcardResource(this.role, schedules, "Schedules are one-time and named at run time after what they guard; the grant is " + "limited to Tollgate's own schedule group.");
    this.role.addToPolicy(
      new iam.PolicyStatement({
        sid: "PassSchedulerRole",
        actions: ["iam:PassRole"],
        resources: [props.role.roleArn],
        conditions: { StringEquals: { "iam:PassedToService": "scheduler.amazonaws.com" } },
      }),
    );
  }

  /**
   * `secretsmanager:GetSecretValue` on the JWT secret, and its ARN in the environment; with a
   * customer managed key, `kms:Decrypt` on that key for calls Secrets Manager makes on the
   * function's behalf (the secret's value is decrypted with the caller's own rights).
   */
  bindJwtSecret(secret: ISecret, key?: IKey): void {
    this.addEnv(env.jwtSecretArn, secret.secretArn);
    this.role.addToPolicy(
      new iam.PolicyStatement({
        sid: "ReadJwtSecret",
        actions: ["secretsmanager:GetSecretValue"],
        resources: [secret.secretFullArn ?? `${secret.secretArn}-??????`],
      }),
    );
    if (!key) return;
    this.role.addToPolicy(
      new iam.PolicyStatement({
        sid: "DecryptJwtSecret",
        actions: ["kms:Decrypt"],
        resources: [key.keyArn],
        conditions: { StringEquals: { "kms:ViaService": `secretsmanager.${Stack.of(this).region}.${Stack.of(this).urlSuffix}` } },
      }),
    );
  }

  /** Where approval links lead, on the functions that sign them. */
  setApprovalPage(url: string): void {
    this.addEnv(env.approvalPageUrl, url);
  }

  /** The OpenID issuers whose tokens are accepted, on the functions that verify tokens. */
  setOidcIssuers(json: string): void {
    this.addEnv(env.oidcIssuers, json);
  }

  /** Per-token rate limits, on the functions that raise elicitations or give verdicts. */
  setRateLimits(props: { raisesPerMinute: number; verdictsPerMinute: number }): void {
    this.addEnv(env.rateLimitRaisesPerMinute, String(props.raisesPerMinute));
    this.addEnv(env.rateLimitVerdictsPerMinute, String(props.verdictsPerMinute));
  }

  /**
   * How long resolved elicitations are kept, and whether they go in the history: every function that may
   * resolve one sets their TTL and history keys from these, and the history's function answers by them.
   */
  setHistory(props: { retentionDays: number; keeps: boolean }): void {
    this.addEnv(env.historyRetentionDays, String(props.retentionDays));
    if (!props.keeps) this.addEnv(env.history, "off");
  }

  /** Every function that reaches the table finds a connection's subscriber row in the same shard. */
  setSubscriberShards(shards: number): void {
    this.addEnv(env.subscriberShards, String(shards));
  }

  /** Grace periods, on the functions that arm or fire timers. */
  setGraces(props: { reconnectGraceSeconds: number; escalationGraceSeconds: number }): void {
    this.addEnv(env.reconnectGraceSeconds, String(props.reconnectGraceSeconds));
    this.addEnv(env.escalationGraceSeconds, String(props.escalationGraceSeconds));
  }
}
