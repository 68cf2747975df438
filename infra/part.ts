/**
 * A part of the Tollgate stack: data, functions, schedules, the two APIs, alarms. Parts group
 * constructs for a reader and are invisible to CloudFormation: TollgateStack leaves them out of
 * logical ids, so every resource keeps the id it has directly under the stack, and regrouping
 * the code never replaces a table, a secret or a queue on update.
 */
import type { RemovalPolicy } from "aws-cdk-lib";
import type * as logs from "aws-cdk-lib/aws-logs";
import { Construct } from "constructs";
import type { TollgateConfig } from "./config.js";
import type { TollgateFunctions } from "./functions.js";

export abstract class StackPart extends Construct {}

/** What each API part is built from: its routes come from the functions' catalog triggers. */
export interface ApiPartProps {
  config: TollgateConfig;
  functions: TollgateFunctions;
  logRetention: logs.RetentionDays;
  removalPolicy: RemovalPolicy;
}
