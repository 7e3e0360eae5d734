/** What other modules may use of the catalog: a tool as the operator's file defines it, reading that file (the operator's commands), and the tool as the public catalog shows it. */
export { loadCatalog, type Tool } from "./catalog-file";
export { publicTool } from "./public-tool";
