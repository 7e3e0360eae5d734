import { StringDecoder } from "node:string_decoder";
import zlib from "node:zlib";
import type { Transform } from "node:stream";

export const UNITS_HEADER = "x-tool-units";
/** A server-sent event larger than this is not read for units (it is still relayed). */
const MAX_EVENT_CHARS = 1024 * 1024;

/** A count of units as an upstream reports it: a whole number ≥ 0, as a number or a decimal string. */
export function unitsValue(value: unknown): number | undefined {
  if (typeof value === "string") {
    if (!/^\s*\d+\s*$/.test(value)) return undefined;
    value = Number(value);
  }
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

/** The units at a dotted path (`usage.total_tokens`) of a parsed JSON document. */
export function unitsAtPath(document: unknown, path: string): number | undefined {
  let current = document;
  for (const name of path.split(".")) {
    if (current === null || typeof current !== "object" || !Object.hasOwn(current, name)) return undefined;
    current = (current as Record<string, unknown>)[name];
  }
  return unitsValue(current);
}

export function unitsInJson(text: string, path: string): number | undefined {
  try {
    return unitsAtPath(JSON.parse(text), path);
  } catch {
    return undefined;
  }
}

/**
 * Reads a `text/event-stream` body as it passes and keeps the units of the last event whose
 * `data:` JSON holds the path; `data: [DONE]` and events without the path are skipped.
 */
export class SseUnits {
  units: number | undefined;
  private readonly decoder = new StringDecoder("utf8");
  private line = "";
  private data: string[] = [];
  private dataChars = 0;
  private readonly lastName: string;

  constructor(private readonly path: string) {
    this.lastName = path.slice(path.lastIndexOf(".") + 1);
  }

  write(chunk: Buffer): void {
    let text = this.line + this.decoder.write(chunk);
    // A "\r" at the end may be the first half of "\r\n": wait for the next chunk.
    const heldCr = text.endsWith("\r");
    if (heldCr) text = text.slice(0, -1);
    const lines = text.split(/\r\n|\r|\n/);
    this.line = lines.pop()! + (heldCr ? "\r" : "");
    for (const line of lines) this.onLine(line);
    if (this.line.length > MAX_EVENT_CHARS) this.line = "";
  }

  end(): void {
    const rest = (this.line + this.decoder.end()).replace(/\r$/, "");
    if (rest) this.onLine(rest);
    this.onLine("");
  }

  private onLine(line: string): void {
    if (line === "") {
      if (this.data.length > 0) this.onEvent(this.data.join("\n"));
      this.data = [];
      this.dataChars = 0;
      return;
    }
    if (!line.startsWith("data:")) return;
    const value = line.slice(line[5] === " " ? 6 : 5);
    this.dataChars += value.length;
    if (this.dataChars <= MAX_EVENT_CHARS) this.data.push(value);
  }

  private onEvent(data: string): void {
    if (this.dataChars > MAX_EVENT_CHARS || !data.includes(this.lastName)) return;
    const units = unitsInJson(data, this.path);
    if (units !== undefined) this.units = units;
  }
}

/** A decompressor for a body's content coding, to read units from a compressed answer; null for identity or unknown codings. */
export function decompressorFor(contentEncoding: string | undefined): Transform | null {
  switch (contentEncoding?.trim().toLowerCase()) {
    case "gzip":
    case "x-gzip":
      return zlib.createGunzip();
    case "deflate":
      return zlib.createInflate();
    case "br":
      return zlib.createBrotliDecompress();
    default:
      return null;
  }
}
