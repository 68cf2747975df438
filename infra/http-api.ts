/**
 * The HTTP API: one route per catalog `http` trigger (payload format 2.0), CORS for the inbox,
 * and the `$default` stage with throttling and JSON access logs. No API Gateway authorizer: the
 * handlers verify bearer tokens so that refusals keep the contract's error bodies.
 */
import { Duration, Stack, Validations } from "aws-cdk-lib";
import * as apigw from "aws-cdk-lib/aws-apigateway";
import * as apigwv2 from "aws-cdk-lib/aws-apigatewayv2";
import { HttpLambdaIntegration } from "aws-cdk-lib/aws-apigatewayv2-integrations";
import * as logs from "aws-cdk-lib/aws-logs";
import type { Construct } from "constructs";
import { cors } from "../functions/shared/cors.js";
import { acknowledgeApiInvokePermissions, acknowledgeLogGroupChoices } from "./nag.js";
import { type ApiPartProps, StackPart } from "./part.js";
import { constructIdFor } from "./tollgate-function.js";

export class TollgateHttpApi extends StackPart {
  readonly api: apigwv2.HttpApi;
  readonly stage: apigwv2.HttpStage;

  constructor(scope: Construct, id: string, props: ApiPartProps) {
    super(scope, id);
    const { config: cfg } = props;
    this.api = new apigwv2.HttpApi(this, "HttpApi", {
      apiName: `${Stack.of(this).stackName}-http`,
      description: "Tollgate HTTP API",
      createDefaultStage: false,
      corsPreflight: {
        allowOrigins: cfg.corsOrigins,
        allowMethods: cors.allowMethods.map((method) => apigwv2.CorsHttpMethod[method]),
        allowHeaders: [...cors.allowHeaders],
        exposeHeaders: [...cors.exposeHeaders],
        maxAge: Duration.seconds(cors.maxAgeSeconds),
      },
    });
    const accessLogs = new logs.LogGroup(this, "HttpAccessLogs", {
      retention: props.logRetention,
      removalPolicy: props.removalPolicy,
    });
    acknowledgeLogGroupChoices(accessLogs);
    this.stage = this.api.addStage("HttpStage", {
      stageName: "$default",
      autoDeploy: true,
      throttle: cfg.httpThrottle,
      accessLogSettings: {
        destination: new apigwv2.LogGroupLogDestination(accessLogs),
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
    for (const f of props.functions.all) {
      const trigger = f.spec.trigger;
      if (trigger.kind !== "http") continue;
      this.api.addRoutes({
        path: trigger.path,
        methods: [apigwv2.HttpMethod[trigger.method]],
        integration: new HttpLambdaIntegration(`${constructIdFor(f.name)}Integration`, f.fn, {
          payloadFormatVersion: apigwv2.PayloadFormatVersion.VERSION_2_0,
        }),
      });
    }
    const reason =
      "Bearer tokens are verified inside each handler so that refusals keep the protocol's " +
      '{"error":{"code":"unauthorized"}} body and codes, which an API Gateway authorizer cannot produce; ' +
      "the routes the catalog marks public (GET /healthz, GET /openapi.json) are public by design.";
    Validations.of(this.api).acknowledge({ id: "AwsSolutions-APIG4", reason }, { id: "cdk-validator-cfnguard::api_gw_v2_authorization_type_configured_check", reason });
    acknowledgeApiInvokePermissions(this.api);
  }
}
