import type { ShikiTransformer } from "shiki";

/**
 * Shiki colours code with style attributes, which a CSP without `unsafe-inline` refuses. This
 * moves each distinct style into a class (`hl-0`, `hl-1`, …) and gives back the stylesheet for them.
 */
export function styleToClass(): { transformer: ShikiTransformer; css: () => string } {
  const classes = new Map<string, string>();
  const classFor = (style: string) => {
    let name = classes.get(style);
    if (!name) classes.set(style, (name = `hl-${classes.size}`));
    return name;
  };
  const move = (node: { properties: Record<string, unknown> }) => {
    const style = node.properties.style;
    if (typeof style !== "string" || style === "") return;
    delete node.properties.style;
    const existing = node.properties.class;
    const list = Array.isArray(existing) ? existing.map(String) : typeof existing === "string" ? existing.split(/\s+/) : [];
    node.properties.class = [...list.filter(Boolean), classFor(style)].join(" ");
  };
  return {
    transformer: { name: "tollgate:style-to-class", pre: move, code: move, line: move, span: move },
    css: () => [...classes].map(([style, name]) => `.shiki .${name}, .shiki.${name} { ${style} }`).join("\n"),
  };
}
