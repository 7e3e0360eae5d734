import { loadOnce } from "../../../lib/load-once";
import { jsonResponse, readJson, type ToolHandler, type ToolRequest } from "./types";

const MAX_TEXT = 10_000;
/** Its dictionary is ~15 MB of memory, taken when pinyin is first called. */
const pinyinPro = loadOnce(() => import("pinyin-pro"));
const HAN = /\p{Script=Han}/gu;
const TONES = { symbol: "symbol", num: "num", none: "none" } as const;

/** The Chinese characters of the request's text: what a pinyin call is priced by. */
export function pinyinUnits(request: ToolRequest): number {
  const body = readJson(request);
  const text = body.ok ? body.value.text : undefined;
  return typeof text === "string" && text.length <= MAX_TEXT ? (text.match(HAN)?.length ?? 0) : 0;
}

/** `{text, tone?: "symbol"|"num"|"none"}` → `{pinyin, syllables, characters}`; priced per Chinese character. */
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
  const characters = text.match(HAN)?.length ?? 0;
  const { pinyin: toPinyin } = await pinyinPro();
  return jsonResponse(
    200,
    {
      pinyin: toPinyin(text, { toneType }),
      syllables: toPinyin(text, { toneType, type: "array" }),
      characters,
    },
    characters,
  );
};
