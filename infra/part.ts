/**
 * A part of the Tollgate stack: data, functions, schedules, the two APIs, alarms. Parts group
 * constructs for a reader and are invisible to CloudFormation: TollgateStack leaves them out of
 * logical ids, so every resource keeps the id it has directly under the stack, and regrouping
 * the code never replaces a table, a secret or a queue on update.
 */
import { Construct } from "constructs";

export abstract class StackPart extends Construct {}
