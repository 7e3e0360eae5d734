/** What the billing module offers other modules: what paid for a call (decision 054), as the billing details say it. */
export { lotPartsOf, paidBy, paidByWords } from "./service";
