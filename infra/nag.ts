/**
 * Helpers for cdk-nag (v3) acknowledgments. Granular findings are acknowledged by their full
 * `Rule[Finding]` id, and IAM5's finding names the resource as cdk-nag flattens it:
 * `Fn::Join` parts concatenated, `{Ref: X}` as `<X>`, `{Fn::GetAtt: [A, B]}` as `<A.B>`.
 * The same ARN renders differently in an environment-agnostic stack (`<AWS::Region>`) and
 * in one synthesised with a known region (`us-east-1`), so the id is computed from the very
 * value that was granted, never written by hand.
 */
import { Stack, Validations } from "aws-cdk-lib";
import type { IConstruct } from "constructs";

/** cdk-nag's rendering of a CloudFormation value (mirrors cdk-nag's flattenCfnReference). */
export function flattenForNag(value: unknown): string {
  if (value === undefined) return "";
  if (typeof value === "string") return value.replace(/\$\{/g, "<").replace(/\}/g, ">");
  const v = value as Record<string, unknown>;
  if (v["Fn::Join"]) {
    const [delimiter, items] = v["Fn::Join"] as [string, unknown[]];
    return items.map(flattenForNag).join(delimiter);
  }
  if (v["Fn::Sub"]) return flattenForNag(v["Fn::Sub"]);
  if (v["Fn::GetAtt"]) {
    const [resource, attribute] = v["Fn::GetAtt"] as [unknown, unknown];
    return `<${flattenForNag(resource)}.${flattenForNag(attribute)}>`;
  }
  if (v["Fn::ImportValue"]) return flattenForNag(v["Fn::ImportValue"]);
  if (v.Ref) return `<${flattenForNag(v.Ref)}>`;
  return JSON.stringify(value);
}

/** Acknowledge AwsSolutions-IAM5 for exactly one wildcard resource granted on `scope`. */
export function acknowledgeWildcardResource(scope: IConstruct, resource: string, reason: string): void {
  const flat = flattenForNag(Stack.of(scope).resolve(resource));
  Validations.of(scope).acknowledge({ id: `AwsSolutions-IAM5[Resource::${flat}]`, reason });
}

/** Acknowledge AWS Control Tower's two log group controls, as reasoned choices. */
export function acknowledgeLogGroupChoices(logGroup: IConstruct): void {
  Validations.of(logGroup).acknowledge(
    {
      id: "cdk-validator-cfnguard::cloudwatch_log_group_retention_period_check",
      reason:
        "Retention is the operator's choice (tollgate:logRetentionDays, 30 days by default): the logs serve " +
        "operations, not audit; a deployment under a regime that asks for a year sets 365 or more.",
    },
    {
      id: "cdk-validator-cfnguard::cloudwatch_log_group_encrypted_check",
      reason:
        "CloudWatch Logs encrypts every log group at rest with its own keys; the handlers log failures only, " +
        "never a request body, token or key, so a customer managed key would add cost and a key policy, not protection.",
    },
  );
}

/**
 * Acknowledge Control Tower's Lambda public access control for the invoke permissions API Gateway
 * integrations create under `api`: each is scoped by SourceArn to this API's own execute-api ARN,
 * a Fn::Join the control cannot read as a string.
 */
export function acknowledgeApiInvokePermissions(api: IConstruct): void {
  Validations.of(api).acknowledge({
    id: "cdk-validator-cfnguard::lambda_function_public_access_prohibited_check",
    reason:
      "Each invoke permission is for apigateway.amazonaws.com with a SourceArn of this API's own execute-api " +
      "ARN (built with Fn::Join from the API id, which the control cannot read as a string): not public.",
  });
}
