/**
 * The WebSocket API (runners and the approval inbox): route selection by `action`, one route per
 * catalog `ws` trigger, the `$connect` authorizer, and the `live` stage with throttling and
 * access logs. The API resource references no function, so functions may reference it (for the
 * `@connections` URL and grant) without a cycle: routes and integrations carry the references.
 */
import { RemovalPolicy, Stack, Validations } from "aws-cdk-lib";
import * as apigw from "aws-cdk-lib/aws-apigateway";
import * as apigwv2 from "aws-cdk-lib/aws-apigatewayv2";
import { WebSocketLambdaAuthorizer } from "aws-cdk-lib/aws-apigatewayv2-authorizers";
import { WebSocketLambdaIntegration } from "aws-cdk-lib/aws-apigatewayv2-integrations";
import * as iam from "aws-cdk-lib/aws-iam";
import * as logs from "aws-cdk-lib/aws-logs";
import type { Construct } from "constructs";
import { acknowledgeApiInvokePermissions, acknowledgeLogGroupChoices } from "./nag.js";
import type { TollgateFunctions } from "./functions.js";
import { type ApiPartProps, StackPart } from "./part.js";
import { type ConnectionsBinding, constructIdFor } from "./tollgate-function.js";

/** Stage of the WebSocket API; part of the wss:// URL and of the @connections base URL. */
export const webSocketStageName = "live";

export class TollgateWebSocketApi extends StackPart {
  readonly api: apigwv2.WebSocketApi;
  readonly stage: apigwv2.WebSocketStage;

  constructor(scope: Construct, id: string, props: ApiPartProps) {
    super(scope, id);
    const { config: cfg } = props;
    const stackName = Stack.of(this).stackName;
    // Parented at the stack: the authorizer's invoke permission takes its id from the API's path.
    this.api = new apigwv2.WebSocketApi(Stack.of(this), "WebSocketApi", {
      apiName: `${stackName}-ws`,
      description: "Tollgate WebSocket API (runners and the approval inbox)",
      routeSelectionExpression: "$request.body.action",
    });
    this.stage = new apigwv2.WebSocketStage(this, "WebSocketStage", {
      webSocketApi: this.api,
      stageName: webSocketStageName,
      autoDeploy: true,
      throttle: cfg.wsThrottle,
      accessLogSettings: cfg.webSocketAccessLogs ? this.accessLogs(props) : undefined,
    });
    if (!cfg.webSocketAccessLogs) this.acknowledgeNoAccessLogs();
    if (cfg.apiGatewayCloudWatchRole) this.addAccountLogRole();
    this.addRoutes(props.functions, cfg.wsIdentitySource);
  }

  /** Where the functions that push to connections post, and what they are granted. */
  get connections(): ConnectionsBinding {
    return { apiId: this.api.apiId, stageName: this.stage.stageName, callbackUrl: this.stage.callbackUrl };
  }

  /** One JSON line per connect, frame and disconnect. */
  private accessLogs(props: ApiPartProps): apigwv2.IAccessLogSettings {
    const group = new logs.LogGroup(this, "WebSocketAccessLogs", {
      retention: props.logRetention,
      removalPolicy: props.removalPolicy,
    });
    acknowledgeLogGroupChoices(group);
    return {
      destination: new apigwv2.LogGroupLogDestination(group),
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
    };
  }

  private acknowledgeNoAccessLogs(): void {
    const reason =
      "WebSocket access logs need the account-wide API Gateway CloudWatch Logs role, which this stack " +
      "does not set unless asked (tollgate:apiGatewayCloudWatchRole or tollgate:webSocketAccessLogs, " +
      "docs/deploy.md); every handler still logs each frame it serves to its own log group.";
    Validations.of(this.stage).acknowledge({ id: "AwsSolutions-APIG1", reason }, { id: "cdk-validator-cfnguard::api_gw_v2_access_logs_enabled_check", reason });
  }

  /** WebSocket (unlike HTTP) API access logging needs the account-level CloudWatch Logs role. */
  private addAccountLogRole(): void {
    const cwRole = new iam.Role(this, "ApiGatewayCloudWatchRole", {
      description: "API Gateway account setting: lets API Gateway write WebSocket access logs",
      assumedBy: new iam.ServicePrincipal("apigateway.amazonaws.com"),
      managedPolicies: [iam.ManagedPolicy.fromAwsManagedPolicyName("service-role/AmazonAPIGatewayPushToCloudWatchLogs")],
    });
    // Other APIs of the account may rely on this role once it is the account setting.
    cwRole.applyRemovalPolicy(RemovalPolicy.RETAIN);
    Validations.of(cwRole).acknowledge({
      id: "AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]",
      reason: "This is the account-wide role API Gateway assumes to write logs to log groups it creates per API " + "and stage; AWS documents this managed policy for exactly that purpose.",
    });
    const account = new apigw.CfnAccount(this, "ApiGatewayAccount", { cloudWatchRoleArn: cwRole.roleArn });
    account.applyRemovalPolicy(RemovalPolicy.RETAIN);
    this.stage.node.addDependency(account);
  }

  private addRoutes(functions: TollgateFunctions, identitySource: string[]): void {
    const [authorizerFn] = functions.triggeredBy("ws-authorizer");
    if (!authorizerFn) throw new Error("catalog has no ws-authorizer function");
    const authorizer = new WebSocketLambdaAuthorizer("ConnectAuthorizer", authorizerFn.fn, {
      authorizerName: `${Stack.of(this).stackName}-connect`,
      // By default no identity source: a token may come as the Authorization header or as
      // ?token= (a browser cannot set headers). Any listed source is mandatory for API Gateway,
      // which would refuse the other form with a bare 401 before our authorizer runs.
      identitySource,
    });
    for (const f of functions.all) {
      if (f.spec.trigger.kind !== "ws") continue;
      const routeKey = f.spec.trigger.route;
      const isConnect = routeKey === "$connect";
      const lifecycle = isConnect || routeKey === "$disconnect";
      const route = this.api.addRoute(routeKey, {
        integration: new WebSocketLambdaIntegration(`${constructIdFor(f.name)}Integration`, f.fn),
        authorizer: isConnect ? authorizer : undefined,
        // A frame's direct reply (`hello.ok`, `elicitation.parked`, error frames...) is the
        // handler's returned body. $connect/$disconnect have no client frame to reply to.
        returnResponse: !lifecycle,
      });
      if (!isConnect) {
        const reason =
          "API Gateway runs WebSocket authorizers on $connect only; every later frame of the connection is " +
          "authorised by the $connect authorizer, and handlers check the caller recorded for the connection.";
        Validations.of(route).acknowledge({ id: "AwsSolutions-APIG4", reason }, { id: "cdk-validator-cfnguard::api_gw_v2_authorization_type_configured_check", reason });
      }
    }
    acknowledgeApiInvokePermissions(this.api);
  }
}
