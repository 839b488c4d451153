/**
 * The JSON error answers every route of the server shares, `{ statusCode, error, code, message,
 * parameter? }`. Each plugin sets the handler in its own context (fastify encapsulation), so the
 * memory API and the Inspector answer in this shape inside a host's app too, whatever the host's
 * own error handler says.
 *
 * | error | answer |
 * |---|---|
 * | a query parameter fails the route's schema (fastify's validation) | 400 `INVALID_PARAMETER`, `parameter` naming it, "query parameter <name> is required" or ajv's message |
 * | an error with a status ≥ 400 (fastify's own, a typed error carrying one) | that status, the error's code (`INTERNAL` without one) |
 * | anything else | 500, the error's code (`INTERNAL` without one) |
 */
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";

export function replyWithJsonError(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error.validation) {
    const issue = error.validation[0];
    const params = issue?.params as { missingProperty?: string; additionalProperty?: string } | undefined;
    const parameter = String(params?.missingProperty ?? params?.additionalProperty ?? issue?.instancePath.replace(/^\//, "") ?? "");
    const problem = params?.missingProperty !== undefined ? "is required" : (issue?.message ?? "is not valid");
    return reply.code(400).send({ statusCode: 400, error: "Bad Request", code: "INVALID_PARAMETER", parameter, message: `query parameter ${parameter} ${problem}` });
  }
  const status = error.statusCode && error.statusCode >= 400 ? error.statusCode : 500;
  return reply.code(status).send({ statusCode: status, error: status === 500 ? "Internal Server Error" : error.name, code: error.code ?? "INTERNAL", message: error.message });
}

/** The 404 of a path no route serves. */
export function replyNotFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return reply.code(404).send({ statusCode: 404, error: "Not Found", code: "NOT_FOUND", message: `no route ${request.method} ${request.url.split("?")[0]}` });
}
