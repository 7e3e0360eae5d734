import type { Locator } from "@playwright/test";

/** The text (its start) of each of a table's cells that lies, wholly or partly, under one of its fixed columns' cells in its row. */
export function cellsUnderFixedColumns(table: Locator): Promise<string[]> {
  return table.locator("tr.ant-table-row").evaluateAll((rows) =>
    rows.flatMap((row) => {
      const cells = [...row.querySelectorAll<HTMLElement>(":scope > td")];
      const isFixed = (cell: HTMLElement) => /\bant-table-cell-fix/.test(cell.className);
      const fixed = cells.filter(isFixed).map((cell) => cell.getBoundingClientRect());
      return cells
        .filter((cell) => !isFixed(cell))
        .filter((cell) => {
          const { left, right } = cell.getBoundingClientRect();
          return fixed.some((over) => left < over.right - 0.5 && right > over.left + 0.5);
        })
        .map((cell) => cell.innerText.trim().slice(0, 30));
    }),
  );
}
