import { loadOnce } from "../../../lib/load-once";
import { isWellFormed } from "#shared/text";
import { jsonResponse, readJson, type ToolHandler } from "./types";

const MAX_TEXT = 2000;
const qrcodeLibrary = loadOnce(async () => (await import("qrcode")).default);

/** `{text, format?: "png"|"svg", size?: 64..2048, margin?: 0..16}` → the QR code image. */
export const qrcode: ToolHandler = async (request) => {
  const body = readJson(request);
  if (!body.ok) return body.response;
  const { text, format = "png", size = 256, margin = 2 } = body.value;
  const problem =
    typeof text !== "string" || text.length === 0
      ? "text is required"
      : text.length > MAX_TEXT
        ? `text is longer than ${MAX_TEXT} characters`
        : !isWellFormed(text)
          ? "text must be valid Unicode: it holds a lone surrogate"
          : format !== "png" && format !== "svg"
            ? 'format must be "png" or "svg"'
            : typeof size !== "number" || !Number.isInteger(size) || size < 64 || size > 2048
              ? "size must be a whole number from 64 to 2048"
              : typeof margin !== "number" || !Number.isInteger(margin) || margin < 0 || margin > 16
                ? "margin must be a whole number from 0 to 16"
                : null;
  if (problem) return jsonResponse(400, { error: { code: "invalid_request", message: problem } });
  const options = { width: size as number, margin: margin as number, errorCorrectionLevel: "M" as const };
  const QRCode = await qrcodeLibrary();
  try {
    QRCode.create(text as string, options);
  } catch {
    // Valid text, but more than a QR code holds (500 "❤️" are 3,000 bytes).
    return jsonResponse(400, { error: { code: "invalid_request", message: "text is too long to fit in a QR code: shorten it" } });
  }
  if (format === "svg") {
    return { status: 200, contentType: "image/svg+xml", body: await QRCode.toString(text as string, { ...options, type: "svg" }) };
  }
  return { status: 200, contentType: "image/png", body: await QRCode.toBuffer(text as string, { ...options, type: "png" }) };
};
