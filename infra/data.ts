/**
 * Tollgate's state: the table (functions/shared/tables.ts), the JWT secret (generated, or the
 * operator's own) and the failure queue where exhausted retries land.
 */
import { Duration, type RemovalPolicy, Stack, Validations } from "aws-cdk-lib";
import * as dynamodb from "aws-cdk-lib/aws-dynamodb";
import * as kms from "aws-cdk-lib/aws-kms";
import * as secretsmanager from "aws-cdk-lib/aws-secretsmanager";
import * as sqs from "aws-cdk-lib/aws-sqs";
import type { Construct } from "constructs";
import { mainTable, sessionIndexStep } from "../functions/shared/tables.js";
import type { CapacityConfig, TollgateConfig } from "./config.js";
import { StackPart } from "./part.js";

export interface DataProps {
  config: TollgateConfig;
  removalPolicy: RemovalPolicy;
}

/** An encrypted, TLS-only queue that other services write failures to (never read by Tollgate). */
export function deadLetterQueue(scope: Construct, id: string, reason: string): sqs.Queue {
  const queue = new sqs.Queue(scope, id, {
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
    // SQS's default, stated: it marks the queue as a dead-letter queue, which it is.
    redriveAllowPolicy: { redrivePermission: sqs.RedrivePermission.ALLOW_ALL },
  });
  Validations.of(queue).acknowledge({ id: "AwsSolutions-SQS3", reason });
  return queue;
}

type Provisioned = Extract<CapacityConfig, { mode: "provisioned" }>;

/** The table's billing mode and, when provisioned, the capacity it starts with (auto scaling's floor). */
function billing(capacity: CapacityConfig): Pick<dynamodb.TableProps, "billingMode" | "readCapacity" | "writeCapacity"> {
  if (capacity.mode === "on-demand") return { billingMode: dynamodb.BillingMode.PAY_PER_REQUEST };
  return { billingMode: dynamodb.BillingMode.PROVISIONED, ...startingUnits(capacity) };
}

function startingUnits(capacity: CapacityConfig): { readCapacity?: number; writeCapacity?: number } {
  return capacity.mode === "provisioned" ? { readCapacity: capacity.readUnits.min, writeCapacity: capacity.writeUnits.min } : {};
}

/**
 * Target tracking on the table and on every index, reads and writes apart: a write the table takes
 * is throttled when an index it must also write has no capacity left, so each index scales too.
 * Application Auto Scaling acts through its service-linked role: no role of the stack's own.
 */
function autoScale(table: dynamodb.Table, indexNames: string[], capacity: Provisioned) {
  const target = { targetUtilizationPercent: capacity.targetUtilizationPercent };
  const reads = { minCapacity: capacity.readUnits.min, maxCapacity: capacity.readUnits.max };
  const writes = { minCapacity: capacity.writeUnits.min, maxCapacity: capacity.writeUnits.max };
  table.autoScaleReadCapacity(reads).scaleOnUtilization(target);
  table.autoScaleWriteCapacity(writes).scaleOnUtilization(target);
  for (const indexName of indexNames) {
    table.autoScaleGlobalSecondaryIndexReadCapacity(indexName, reads).scaleOnUtilization(target);
    table.autoScaleGlobalSecondaryIndexWriteCapacity(indexName, writes).scaleOnUtilization(target);
  }
}

export class TollgateData extends StackPart {
  readonly table: dynamodb.Table;
  readonly jwtSecret: secretsmanager.ISecret;
  /** The customer managed key a bring-your-own JWT secret is encrypted with, if any. */
  readonly jwtSecretKey?: kms.IKey;
  readonly failureQueue: sqs.Queue;

  constructor(scope: Construct, id: string, props: DataProps) {
    super(scope, id);
    const { config: cfg, removalPolicy } = props;

    // Parented at the stack: the stream's event source mapping takes its id from the table's path.
    this.table = new dynamodb.Table(Stack.of(this), mainTable.id, {
      partitionKey: { name: mainTable.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: mainTable.sortKey, type: dynamodb.AttributeType.STRING },
      ...billing(cfg.capacity),
      stream: dynamodb.StreamViewType[mainTable.streamView],
      timeToLiveAttribute: mainTable.timeToLive,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      deletionProtection: cfg.deletionProtection,
      removalPolicy,
    });
    const indexes = sessionIndexStep(cfg.sessionIndexUpgrade).indexes;
    for (const ix of indexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: ix.name,
        partitionKey: { name: ix.partitionKey, type: dynamodb.AttributeType.STRING },
        sortKey: { name: ix.sortKey, type: dynamodb.AttributeType.STRING },
        projectionType: dynamodb.ProjectionType[ix.projection],
        ...startingUnits(cfg.capacity),
      });
    }
    if (cfg.capacity.mode === "provisioned")
      autoScale(
        this.table,
        indexes.map((ix) => ix.name),
        cfg.capacity,
      );

    this.jwtSecret = cfg.jwtSecretArn ? this.existingSecret(cfg.jwtSecretArn) : this.generatedSecret(removalPolicy);
    if (cfg.jwtSecretKeyArn) this.jwtSecretKey = kms.Key.fromKeyArn(this, "JwtSecretKey", cfg.jwtSecretKeyArn);

    // Everything that fails after its retries lands here: stream batches (onFailure) and
    // Scheduler's asynchronous timer invocations (Lambda async onFailure destination).
    this.failureQueue = deadLetterQueue(
      this,
      "FailureQueue",
      "This queue is itself the dead-letter destination of the stream event source mapping and of the " +
        "timer functions' asynchronous invokes; an alarm fires on its first message. It needs no DLQ of its own.",
    );
  }

  private existingSecret(arn: string): secretsmanager.ISecret {
    // A complete ARN ends in the 6-character suffix Secrets Manager appends to the name.
    return /-[A-Za-z0-9]{6}$/.test(arn) ? secretsmanager.Secret.fromSecretCompleteArn(this, "JwtSecret", arn) : secretsmanager.Secret.fromSecretPartialArn(this, "JwtSecret", arn);
  }

  private generatedSecret(removalPolicy: RemovalPolicy): secretsmanager.ISecret {
    const secret = new secretsmanager.Secret(this, "JwtSecret", {
      description: "Tollgate: HS256 key that bearer tokens are signed with (the SecretString itself is the key)",
      generateSecretString: { passwordLength: 64, excludePunctuation: true, includeSpace: false },
      removalPolicy,
    });
    Validations.of(secret).acknowledge({
      id: "AwsSolutions-SMG4",
      reason:
        "The secret is an HS256 signing key shared with the token issuer: rotating it invalidates every " +
        "token in flight, so rotation is an operator step coordinated with the issuer (docs/deploy.md).",
    });
    return secret;
  }
}
