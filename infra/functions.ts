/**
 * One TollgateFunction per catalog entry (functions/catalog.ts), and the bindings that give each
 * exactly what its entry lists: table actions, @connections, schedules, the JWT secret, limits
 * and graces. A function added to the catalog gets all of this, and its route or event source
 * from the API parts, with no change here.
 */
import { Duration, type RemovalPolicy, Validations } from "aws-cdk-lib";
import type * as dynamodb from "aws-cdk-lib/aws-dynamodb";
import type * as kms from "aws-cdk-lib/aws-kms";
import type * as lambda from "aws-cdk-lib/aws-lambda";
import { FilterCriteria, StartingPosition } from "aws-cdk-lib/aws-lambda";
import { SqsDestination } from "aws-cdk-lib/aws-lambda-destinations";
import { DynamoEventSource, SqsDlq } from "aws-cdk-lib/aws-lambda-event-sources";
import type * as logs from "aws-cdk-lib/aws-logs";
import type * as secretsmanager from "aws-cdk-lib/aws-secretsmanager";
import type * as sqs from "aws-cdk-lib/aws-sqs";
import type { Construct } from "constructs";
import { type FunctionName, type FunctionSpec, functions as catalog, type TimerName, type Trigger, readsJwtSecret, streamItemKinds, timerFunctions } from "../functions/catalog.js";
import type { TollgateConfig } from "./config.js";
import { StackPart } from "./part.js";
import { type ConnectionsBinding, constructIdFor, type SchedulerBinding, TollgateFunction } from "./tollgate-function.js";

export interface FunctionsProps {
  /** Where the catalog's entry files are found. */
  sourceRoot: string;
  logRetention: logs.RetentionDays;
  removalPolicy: RemovalPolicy;
  /** Node maps stack traces to the sources (`tollgate:sourceMaps`). */
  sourceMaps: boolean;
}

export interface FunctionBindings {
  config: TollgateConfig;
  table: dynamodb.ITable;
  jwtSecret: secretsmanager.ISecret;
  jwtSecretKey?: kms.IKey;
  failureQueue: sqs.IQueue;
  connections: ConnectionsBinding;
  scheduler: SchedulerBinding;
  /** TOLLGATE_OIDC_ISSUERS: the configured issuers and the stack's own user pool, if any. */
  oidcIssuers?: string;
}

export class TollgateFunctions extends StackPart {
  readonly byName: Record<FunctionName, TollgateFunction>;

  constructor(scope: Construct, id: string, props: FunctionsProps) {
    super(scope, id);
    const byName = {} as Record<FunctionName, TollgateFunction>;
    for (const [name, spec] of Object.entries(catalog) as [FunctionName, FunctionSpec][]) {
      byName[name] = new TollgateFunction(this, constructIdFor(name), { name, spec, ...props });
    }
    this.byName = byName;
  }

  get all(): TollgateFunction[] {
    return Object.values(this.byName);
  }

  /** The functions a trigger of this kind invokes, in catalog order. */
  triggeredBy<K extends Trigger["kind"]>(kind: K): TollgateFunction[] {
    return this.all.filter((f) => f.spec.trigger.kind === kind);
  }

  /** The function each one-time schedule invokes, by timer. */
  get timerTargets(): Record<TimerName, lambda.IFunction> {
    const entries = (Object.entries(timerFunctions) as [TimerName, FunctionName][]).map(([timer, name]) => [timer, this.byName[name].fn]);
    return Object.fromEntries(entries) as Record<TimerName, lambda.IFunction>;
  }

  /** Grant and configure every function as its catalog entry says. */
  bind(b: FunctionBindings): void {
    for (const f of this.all) {
      const spec = f.spec;
      f.bindTable(b.table, spec.table, b.config.sessionIndexUpgrade);
      if (spec.connections || spec.closesConnections) f.bindConnections(b.connections, { post: Boolean(spec.connections || spec.closesConnections), delete: Boolean(spec.closesConnections) });
      if (spec.scheduler) f.bindScheduler(b.scheduler, spec.scheduler);
      // An approval link's key is derived from the token secret.
      if (readsJwtSecret(spec)) f.bindJwtSecret(b.jwtSecret, b.jwtSecretKey);
      if (spec.signsLinks && b.config.approvalPageUrl) f.setApprovalPage(b.config.approvalPageUrl);
      if (spec.verifiesTokens && b.oidcIssuers) f.setOidcIssuers(b.oidcIssuers);
      if (spec.rateLimited) f.setRateLimits(b.config.rateLimits);
      f.setHistory({ retentionDays: b.config.historyRetentionDays, keeps: b.config.history });
      if (spec.table.length > 0) f.setSubscriberShards(b.config.subscriberShards);
      if (spec.scheduler || spec.trigger.kind === "timer") {
        f.setGraces({
          reconnectGraceSeconds: b.config.reconnectGraceSeconds,
          escalationGraceSeconds: b.config.escalationGraceSeconds,
        });
      }
      if (spec.trigger.kind === "timer") {
        // Scheduler invokes asynchronously: two Lambda retries, then the failure queue.
        f.fn.configureAsyncInvoke({
          retryAttempts: 2,
          maxEventAge: Duration.hours(1),
          onFailure: new SqsDestination(b.failureQueue),
        });
      }
    }
  }

  /** The table's stream feeds the stream-triggered functions, filtered to the item kinds they react to; failed batches go to the failure queue. */
  readStream(table: dynamodb.ITable, failureQueue: sqs.IQueue): void {
    for (const f of this.triggeredBy("stream")) {
      f.fn.addEventSource(
        new DynamoEventSource(table, {
          startingPosition: StartingPosition.TRIM_HORIZON,
          batchSize: 100,
          reportBatchItemFailures: true,
          bisectBatchOnError: true,
          retryAttempts: 5,
          maxRecordAge: Duration.hours(6),
          onFailure: new SqsDlq(failureQueue),
          filters: [FilterCriteria.filter({ dynamodb: { NewImage: { kind: { S: [...streamItemKinds] } } } })],
        }),
      );
      Validations.of(f.role).acknowledge({
        id: "AwsSolutions-IAM5[Resource::*]",
        reason:
          "dynamodb:ListStreams, which the stream event source mapping needs, supports no resource-level " +
          "permission; the stream's records themselves are readable on this table's stream ARN only.",
      });
    }
  }
}
