import { beijingDateTime } from "#shared/beijing-time";

/**
 * An instant in a table's time column, in Beijing time: the date over the time, each kept whole,
 * so the column stays narrow on a phone while the table scrolls beside it. Its text is the one
 * line `beijingDateTime` writes.
 */
export function TableTime({ at }: { at: string }) {
  const text = beijingDateTime(at);
  const dateEnd = text.indexOf(" ") + 1;
  return (
    <span className="table-time">
      <span>{text.slice(0, dateEnd)}</span>
      <span>{text.slice(dateEnd)}</span>
    </span>
  );
}
