/** `$connect` request authorizer: verifies the bearer token and hands its identity to every route. */
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from "aws-lambda";
import { bearerToken } from "./shared/auth.js";
import { servicesOf } from "./lambda/services.js";
import { ProtocolError } from "./shared/errors.js";
import type { Claims } from "./shared/schemas.js";

const policy = (effect: "Allow" | "Deny", resource: string) => ({
  Version: "2012-10-17",
  Statement: [{ Action: "execute-api:Invoke", Effect: effect, Resource: resource }],
});

export const handler = async (event: APIGatewayRequestAuthorizerEvent, context?: unknown): Promise<APIGatewayAuthorizerResult> => {
  let claims: Claims;
  try {
    claims = await servicesOf(context).verify(bearerToken(event.headers, event.queryStringParameters));
  } catch (error) {
    // A valid identity without a Tollgate tenant or role: API Gateway answers 403 to a Deny.
    if (error instanceof ProtocolError && error.code === "forbidden") return { principalId: "unmapped", policyDocument: policy("Deny", event.methodArn) };
    throw new Error("Unauthorized"); // API Gateway answers 401 and refuses the connection
  }
  return {
    principalId: claims.sub,
    policyDocument: policy("Allow", event.methodArn),
    // `exp` rides along so every route can refuse frames once the token has expired.
    context: { sub: claims.sub, tenant: claims.tenant, role: claims.role, exp: claims.exp },
  };
};
