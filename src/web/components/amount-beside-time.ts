import { Grid, type TableColumnsType } from "antd";

/**
 * A money table's columns, its time first: on a phone (below antd's md breakpoint, where the
 * console's menu folds away) its amount column moves up beside the time, so the screen shows what
 * each row cost or credited before the table is scrolled sideways; the columns it passes keep their
 * order. Wider, the columns stay as written.
 */
export function useAmountBesideTime<T>(columns: TableColumnsType<T>): TableColumnsType<T> {
  const phone = !Grid.useBreakpoint().md;
  const amount = columns.findIndex((column) => "dataIndex" in column && column.dataIndex === "amount");
  if (!phone || amount < 1) return columns;
  return [columns[0]!, columns[amount]!, ...columns.slice(1, amount), ...columns.slice(amount + 1)];
}
