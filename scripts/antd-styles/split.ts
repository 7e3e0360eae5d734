/**
 * Cuts a stylesheet into consecutive parts of at most `maxBytes` (UTF-8) each, between top-level
 * rules, so that the parts linked in order give the same cascade as the whole. A browser parses
 * each linked sheet in a task of its own: several short tasks instead of one long one (decision 039).
 * A single rule longer than `maxBytes` is a part by itself.
 */
export function splitStylesheet(css: string, maxBytes: number): string[] {
  const parts: string[] = [];
  let partStart = 0;
  let ruleStart = 0;
  let depth = 0;
  // The bytes from partStart to ruleStart.
  let partBytes = 0;
  for (let i = 0; i < css.length; i++) {
    const c = css[i];
    if (c === '"' || c === "'") {
      // Strings may hold braces (a `content`): skip to the closing quote.
      for (i++; i < css.length && css[i] !== c; i++) if (css[i] === "\\") i++;
    } else if (c === "/" && css[i + 1] === "*") {
      const end = css.indexOf("*/", i + 2);
      i = end === -1 ? css.length : end + 1;
    } else if (c === "{") {
      depth++;
    } else if (c === "}") {
      depth--;
      if (depth < 0) throw new Error(`splitStylesheet: unbalanced "}" at ${i}`);
      if (depth === 0) {
        // A top-level rule ends here: start a new part before it if it does not fit in this one.
        const ruleBytes = Buffer.byteLength(css.slice(ruleStart, i + 1));
        if (ruleStart > partStart && partBytes + ruleBytes > maxBytes) {
          parts.push(css.slice(partStart, ruleStart));
          partStart = ruleStart;
          partBytes = 0;
        }
        partBytes += ruleBytes;
        ruleStart = i + 1;
      }
    } else if (c === ";" && depth === 0) {
      // A top-level statement (`@charset`, `@import`, `@layer a, b;`) ends here.
      partBytes += Buffer.byteLength(css.slice(ruleStart, i + 1));
      ruleStart = i + 1;
    }
  }
  if (depth !== 0) throw new Error("splitStylesheet: unbalanced \"{\" at the end");
  if (partStart < css.length) parts.push(css.slice(partStart));
  return parts.filter((part) => part.trim() !== "");
}
