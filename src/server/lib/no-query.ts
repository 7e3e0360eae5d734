import { z } from "zod";

/**
 * The query string of an /api route that takes no parameter. A parameter sent to it is refused by
 * name (`the query string does not take the parameter x`), as the routes that take parameters refuse
 * the ones they do not take, rather than ignored as if it had been heard. The health checks and the
 * public catalog do not use it: load balancers, uptime probes and caches call them with cache-busters.
 */
export const noQuery = z.strictObject({});
