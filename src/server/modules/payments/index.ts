/** What other modules may use of payments: the money settings. */
export type { MoneyConfig } from "./config";
