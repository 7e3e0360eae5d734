/** `{{name}}`, also as it looks inside a URL that Markdown percent-encoded. */
const PLACEHOLDER = /\{\{(\w+)\}\}|%7B%7B(\w+)%7D%7D/gi;

const HAN = /\p{Script=Han}/u;
/** Chinese characters, spaces, and Chinese and full-width punctuation: what needs no space beside Chinese. */
const CHINESE_OR_SPACE = /[\p{Script=Han}\s\u3000-\u303f\uff00-\uffef]/u;
/** A value's first or last character that a space sets off from Chinese beside it: a Latin letter, a digit, "Inc."'s dot. */
const setOff = (character: string) => character !== "" && !CHINESE_OR_SPACE.test(character);

/**
 * Fills `{{name}}` placeholders with configured values (site name, company, contact…);
 * `encode` escapes each value for where it lands (HTML, for instance). Unknown names stay. A value
 * that starts or ends with a Latin letter, a digit or Latin punctuation is set off by a space from a Chinese character
 * beside it, as Chinese text writes a Latin name ("由 Tollgate 运营"); a Chinese value is not.
 */
export function fillPlaceholders(
  template: string,
  values: Readonly<Record<string, string>>,
  encode: (value: string) => string = (value) => value,
): string {
  return template.replace(PLACEHOLDER, (whole: string, plain: string | undefined, encoded: string | undefined, at: number) => {
    const value = values[(plain ?? encoded)!];
    if (value === undefined) return whole;
    const before = HAN.test(template.charAt(at - 1)) && setOff(value.charAt(0)) ? " " : "";
    const after = HAN.test(template.charAt(at + whole.length)) && setOff(value.charAt(value.length - 1)) ? " " : "";
    return before + encode(value) + after;
  });
}

export function escapeHtml(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}
