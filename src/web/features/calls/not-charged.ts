import type { CallRow } from "#shared/calls";
import type { Translate } from "../../i18n";

/** Why a call cost nothing, in the reader's language (the API's own words are English); null when it cost something. */
export function notChargedText(t: Translate, row: Pick<CallRow, "outcome" | "amount" | "upstreamStatus" | "notChargedReason" | "prepaidUnits">): string | null {
  if (row.notChargedReason === null) return null;
  if (row.prepaidUnits > 0) return t("calls.reason.prepaid");
  switch (row.outcome) {
    case "served":
      return row.upstreamStatus === null ? t("calls.reason.gatewayAnswered") : t("calls.reason.refundedLate");
    case "replayed":
      return t("calls.reason.replayed");
    case "tool_rejected":
      return t("calls.reason.toolRejected", { status: row.upstreamStatus ?? "" });
    case "caller_left":
      return t("calls.reason.callerLeft");
    case "stream_cut":
      return t("calls.reason.streamCut");
    case "upstream_failed":
      return row.upstreamStatus === null ? t("calls.reason.unreachable") : t("calls.reason.upstream", { status: row.upstreamStatus });
    case "upstream_timeout":
      return t("calls.reason.timeout");
    default:
      return t("calls.reason.refused", { outcome: t(`calls.outcomes.${row.outcome}`) });
  }
}
