import type { TableProps } from "antd";

/**
 * A table's layout props, for a table with a column fixed at an edge. On a phone each row stays one
 * line and the table scrolls sideways (under its fixed column, where it keeps one). Wider, its cells
 * wrap between words to fit beside the fixed columns: kept on one line (scroll.x max-content), a
 * laptop's table ran wider than its box, and the columns nearest a fixed one sat under it, unread.
 * It scrolls there too only when even wrapped it cannot fit. `fit-table` (app.css) keeps Chinese
 * words whole.
 */
export function fitBesideFixedColumns(phone: boolean): Pick<TableProps, "scroll" | "tableLayout" | "className"> {
  return phone ? { scroll: { x: "max-content" } } : { scroll: { x: true }, tableLayout: "auto", className: "fit-table" };
}
