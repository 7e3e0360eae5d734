import type { CSSProperties } from "react";

/** Keys and addresses read better, and copy more reliably by eye, in a fixed-width font. */
export const MONO: CSSProperties = { fontFamily: "ui-monospace, SFMono-Regular, Menlo, Consolas, monospace" };
