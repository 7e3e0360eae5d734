import { Tag } from "antd";
import type { CallOutcome } from "#shared/calls";

/** An outcome's stable code, coloured by the class of the status the caller got. */
export function OutcomeTag({ outcome, status }: { outcome: CallOutcome; status: number }) {
  const color = status >= 500 ? "red" : status >= 400 ? "orange" : outcome === "served" ? "green" : "default";
  return (
    <Tag color={color} data-testid="call-outcome">
      {outcome}
    </Tag>
  );
}
