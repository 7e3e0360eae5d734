/** What other modules may use of the catalog: a tool as the operator's file defines it, reading that file (the operator's commands), the tool as the public catalog shows it, and the output tokens an OpenAI-compatible tool holds for a request that sets no cap. */
export { defaultOutputCap, loadCatalog, type Tool } from "./catalog-file";
export { publicTool } from "./public-tool";
