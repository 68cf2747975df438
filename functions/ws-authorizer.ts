/** `$connect` request authorizer: verifies the bearer token and hands its identity to every route. */
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from "aws-lambda";
import { bearerToken, verifyToken } from "./shared/auth.js";

export const handler = async (event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> => {
  let claims;
  try {
    claims = await verifyToken(bearerToken(event.headers, event.queryStringParameters));
  } catch {
    throw new Error("Unauthorized"); // API Gateway answers 401 and refuses the connection
  }
  return {
    principalId: claims.sub,
    policyDocument: { Version: "2012-10-17", Statement: [{ Action: "execute-api:Invoke", Effect: "Allow", Resource: event.methodArn }] },
    context: { sub: claims.sub, tenant: claims.tenant, role: claims.role },
  };
};
