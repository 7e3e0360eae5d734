/** The console's "Try it" (issue 40): tries made through the gateway with a key named by id, and the last ones kept. */
export { default as tryRoutes } from "./routes";
