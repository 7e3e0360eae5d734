import { loadOnce } from "../../../lib/load-once";
import { jsonResponse, readJson, type ToolHandler, type ToolRequest } from "./types";

const MAX_TEXT = 10_000;
/** Its dictionary is ~15 MB of memory, taken when pinyin is first called. */
const pinyinPro = loadOnce(() => import("pinyin-pro"));
const HAN = /\p{Script=Han}/gu;
const TONES = { symbol: "symbol", num: "num", none: "none" } as const;

/** The Chinese characters of the request's text: the most a pinyin call is priced by. */
export function pinyinUnits(request: ToolRequest): number {
  const body = readJson(request);
  const text = body.ok ? body.value.text : undefined;
  return typeof text === "string" && text.length <= MAX_TEXT ? (text.match(HAN)?.length ?? 0) : 0;
}

/**
 * pinyin-pro's pieces (one per Chinese character, one per run of other characters kept as written)
 * joined with a space where the text had none, except before closing punctuation and after opening.
 */
function joinPieces(pieces: string[]): string {
  let out = "";
  for (const piece of pieces) {
    if (out && !/\s$|[\p{Ps}\p{Pi}]$/u.test(out) && !/^[\s\p{Pe}\p{Pf}\p{Po}]/u.test(piece)) out += " ";
    out += piece;
  }
  return out;
}

/**
 * `{text, tone?: "symbol"|"num"|"none"}` → `{pinyin, syllables, characters}`; priced per Chinese
 * character it gives a syllable for. Text that is not Chinese stays as it was ("iPhone 15", not
 * "i P h o n e 1 5"), and so does a rare character pinyin-pro has no reading of (𠀀, 㐀), uncharged.
 */
export const pinyin: ToolHandler = async (request) => {
  const body = readJson(request);
  if (!body.ok) return body.response;
  const { text, tone = "symbol" } = body.value;
  if (typeof text !== "string" || text.length === 0 || text.length > MAX_TEXT) {
    return jsonResponse(400, { error: { code: "invalid_request", message: `text is required, at most ${MAX_TEXT} characters` } });
  }
  if (typeof tone !== "string" || !Object.hasOwn(TONES, tone)) {
    return jsonResponse(400, { error: { code: "invalid_request", message: 'tone must be "symbol", "num" or "none"' } });
  }
  const toneType = TONES[tone as keyof typeof TONES];
  const { pinyin: toPinyin } = await pinyinPro();
  const read = toPinyin(text, { toneType, type: "all", nonZh: "consecutive" });
  const pieces = read.map((piece) => (piece.isZh && piece.pinyin ? piece.pinyin : piece.origin));
  const characters = read.filter((piece) => piece.isZh && piece.pinyin).length;
  return jsonResponse(
    200,
    {
      pinyin: joinPieces(pieces),
      syllables: pieces.map((piece) => piece.trim()).filter((piece) => piece !== ""),
      characters,
    },
    characters,
  );
};
