/** `{{name}}`, also as it looks inside a URL that Markdown percent-encoded. */
const PLACEHOLDER = /\{\{(\w+)\}\}|%7B%7B(\w+)%7D%7D/gi;

/**
 * Fills `{{name}}` placeholders with configured values (site name, company, contact…);
 * `encode` escapes each value for where it lands (HTML, for instance). Unknown names stay.
 */
export function fillPlaceholders(
  template: string,
  values: Readonly<Record<string, string>>,
  encode: (value: string) => string = (value) => value,
): string {
  return template.replace(PLACEHOLDER, (whole, plain: string | undefined, encoded: string | undefined) => {
    const value = values[(plain ?? encoded)!];
    return value === undefined ? whole : encode(value);
  });
}

export function escapeHtml(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}
