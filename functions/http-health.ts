/** `GET /healthz`: anyone, no token. */
export const handler = async () => ({ statusCode: 200, headers: { "content-type": "application/json" }, body: '{"ok":true}' });
