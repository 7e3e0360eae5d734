import type { TableColumnsType } from "antd";
import { PHONE_SCREEN, useMediaQuery } from "../lib/use-media-query";

/**
 * A money table's columns, its time first: on a phone (below antd's md breakpoint, where the
 * console's menu folds away) its amount column moves up beside the time, so the screen shows what
 * each row cost or credited before the table is scrolled sideways; the columns it passes keep their
 * order. Wider, the columns stay as written. The screen's width is read at the first render, so the
 * table renders once in its layout, not first in a phone's and then again.
 */
export function useAmountBesideTime<T>(columns: TableColumnsType<T>): TableColumnsType<T> {
  const phone = useMediaQuery(PHONE_SCREEN);
  const amount = columns.findIndex((column) => "dataIndex" in column && column.dataIndex === "amount");
  if (!phone || amount < 1) return columns;
  return [columns[0]!, columns[amount]!, ...columns.slice(1, amount), ...columns.slice(amount + 1)];
}
