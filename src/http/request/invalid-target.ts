import { ApiError } from "../../errors/api-error.ts";

/**
 * The refusal of a request whose target the service cannot place (request-target.ts): HTTP/1.0
 * or 1.1 without a usable `Host`, or a URL that is not `http://HOST/path`.
 */
export function invalidTarget(): ApiError {
  return new ApiError("invalid_request", "The request has no usable Host header or its target is malformed; send HTTP/1.1 with the Host you reached the service at.");
}
