import { useMemo } from "react";
import { Typography } from "antd";
import { isTextual } from "#shared/tries";
import { useT } from "../../i18n";

/** Image types shown as images; any other answer is shown as text (HTML too: never rendered). */
const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp", "image/svg+xml"]);
const mediaType = (contentType: string | null) => (contentType ?? "").split(";", 1)[0]!.trim().toLowerCase();

/** A JSON answer pretty-printed; text as it came (React escapes it). */
function readable(text: string, contentType: string | null): string {
  const type = mediaType(contentType);
  if (type !== "application/json" && !type.endsWith("+json")) return text;
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** An image answer as an <img> of a data: URL: the browser decodes it as an image, and nothing in it (an SVG's script) runs. */
function ImageAnswer({ bytes, type }: { bytes: Uint8Array<ArrayBuffer>; type: string }) {
  const t = useT();
  const url = useMemo(() => {
    let binary = "";
    for (let at = 0; at < bytes.length; at += 0x8000) binary += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
    return `data:${type};base64,${btoa(binary)}`;
  }, [bytes, type]);
  return <img src={url} alt={t("tries.imageAnswer")} className="try-answer-image" data-testid="try-answer-image" />;
}

/**
 * The tool's answer as data, whatever it is: JSON pretty-printed, text escaped, an image shown as
 * an image (once whole), anything else as text. A streamed answer grows as its parts arrive.
 */
export function AnswerView({ text, bytes, contentType, done }: { text: string; bytes: Uint8Array<ArrayBuffer> | null; contentType: string | null; done: boolean }) {
  const t = useT();
  const type = mediaType(contentType);
  const shown = useMemo(() => (done ? readable(text, contentType) : text), [text, contentType, done]);
  if (IMAGE_TYPES.has(type) && bytes) return done ? <ImageAnswer bytes={bytes} type={type} /> : null;
  if (contentType !== null && !isTextual(contentType)) {
    return <Typography.Text type="secondary">{t("tries.binaryAnswer", { bytes: bytes?.length ?? 0, type })}</Typography.Text>;
  }
  return (
    <pre className="try-pre" data-testid="try-answer" tabIndex={0} aria-label={t("tries.answer")}>
      {shown}
    </pre>
  );
}
