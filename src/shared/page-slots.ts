/**
 * Named holes in a page the build writes ahead, filled by the server at start-up from its own
 * catalog and settings (server/modules/site-pages). Letters only, so Markdown, the code
 * highlighter, React and URL encoding all pass a slot through whole.
 */
export const slot = (name: string): string => `tgslot${name}tgslot`;

const SLOT = /tgslot([A-Za-z]+)tgslot/g;

/** Fills every slot of `html` with its value (HTML, escaped by the caller); a slot with no value is a build/server mismatch. */
export function fillSlots(html: string, values: Readonly<Record<string, string>>): string {
  return html.replace(SLOT, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`page template: no value for the slot "${name}"`);
    return value;
  });
}

/**
 * The `<tag>…</tag>` element holding `slot(name)` repeated once per item, each filled with its
 * values: a table row or a card written once by the build for any number of rows.
 */
export function repeatElement(html: string, tag: string, name: string, items: readonly Readonly<Record<string, string>>[]): string {
  const marker = html.indexOf(slot(name));
  const start = html.lastIndexOf(`<${tag}`, marker);
  const close = `</${tag}>`;
  const end = html.indexOf(close, marker);
  if (marker < 0 || start < 0 || end < 0) throw new Error(`page template: no <${tag}> holds the slot "${name}"`);
  const element = html.slice(start, end + close.length);
  return html.slice(0, start) + items.map((values) => fillSlots(element, values)).join("") + html.slice(end + close.length);
}
