import { Tag } from "antd";
import type { CallOutcome } from "#shared/calls";
import { useT } from "../../i18n";

/** An outcome in the reader's language (its stable code in `data-outcome`), coloured by the class of the status the caller got. */
export function OutcomeTag({ outcome, status }: { outcome: CallOutcome; status: number }) {
  const t = useT();
  const color = status >= 500 ? "red" : status >= 400 ? "orange" : outcome === "served" ? "green" : "default";
  return (
    <Tag color={color} data-testid="call-outcome" data-outcome={outcome}>
      {t(`calls.outcomes.${outcome}`)}
    </Tag>
  );
}
