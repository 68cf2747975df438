/**
 * Builds the CDK app: the Tollgate stack with two policy validation plugins, cdk-nag's AWS
 * Solutions checks (cdk-nag v3) and AWS Control Tower's proactive controls (cfn-guard, bundled
 * with the plugin, run offline). Any unacknowledged finding makes `app.synth()` throw
 * `ValidationFailed` after writing `validation-report.json` to the cloud assembly.
 * Shared by infra/app.ts (the `cdk` entry) and the tests in test/infra/.
 */
import { App, type AppProps, Validations } from "aws-cdk-lib";
import { CfnGuardValidator } from "@cdklabs/cdk-validator-cfnguard";
import { AwsSolutionsChecks } from "cdk-nag";
import { TollgateStack, type TollgateStackProps } from "./stack.js";

export const stackId = "Tollgate";

export interface CreateAppOptions {
  app?: AppProps;
  stack?: TollgateStackProps;
  /** Register cdk-nag and cfn-guard (default true). */
  nag?: boolean;
}

export function createTollgateApp(options: CreateAppOptions = {}): { app: App; stack: TollgateStack } {
  const app = new App(options.app);
  const stack = new TollgateStack(app, stackId, {
    env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
    ...options.stack,
  });
  if (options.nag !== false) {
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }), new CfnGuardValidator());
  }
  return { app, stack };
}
