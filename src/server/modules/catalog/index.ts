/** What other modules may use of the catalog: a tool as the operator's file defines it, and as the public catalog shows it. */
export type { Tool } from "./catalog-file";
export { publicTool } from "./public-tool";
