/** What other modules may use of the money wing (decision 048): the gateway's charges and settlements (an LLM call's with its tokens), and top-ups. */
export { chargeBatch, completeBatch, type ChargeItem, type ChargeOutcome, type CompletionItem, type PrepaidDraw, type PrepaidTerms } from "./charges";
export { CALL_REFUND_METHOD, OPERATOR_REFUND_KEY_PREFIX, refundAbandonedCalls, refundBatch, refundChargedCall, resolveUnansweredCall, settleLlmCall, type CallLot, type LlmUsageItem, type RefundItem } from "./refunds";
export { countTopUp, recordTopUp, type TopUpOptions } from "./topup";
export { LedgerReconciler, reportMoneyHealthPeriodically, stuckHolds } from "./health";
export { settleTiered, type TieredSuccess } from "./tiers";
export { buyPackage, grantPackage, LOT_REFUND_KEY_PREFIX, lotOf, PACKAGE_REFUND_METHOD, refundLot, userLots, type Lot, type LotRow, type PackageTerms, type Purchase } from "./lots";
