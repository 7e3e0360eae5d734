/** What other modules may use of the catalog: a tool as the operator's file defines it, and reading that file (the operator's commands). */
export { loadCatalog, type Tool } from "./catalog-file";
