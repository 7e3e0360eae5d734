/** What other modules may use of the catalog: a tool as the operator's file defines it. */
export type { Tool } from "./catalog-file";
