import { ApiError } from "../errors/api-error.ts";
import type { RouteTable } from "./routes.ts";

/**
 * The refusal of a request that no route answers: 405 with `Allow` when only other methods are
 * served on the path, 404 otherwise.
 */
export function noRouteError(routes: RouteTable, method: string, path: string): ApiError {
  const methods = routes.methodsFor(path);
  if (methods.length > 0 && !methods.includes(method)) return new ApiError("method_not_allowed", `Use ${methods.join(" or ")} on this path.`, { headers: { allow: methods.join(", ") } });
  return new ApiError("not_found", "No such resource.");
}
