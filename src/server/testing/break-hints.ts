/**
 * A docs page's HTML as its text reads: without the line-break hints that a code in a table cell
 * carries after its underscores and inner slashes (`insufficient_<wbr>balance`, `v1/<wbr>tools`;
 * scripts/markdown/render.ts), which a reader never sees or copies.
 */
export const withoutBreakHints = (html: string): string => html.replaceAll("<wbr>", "");
