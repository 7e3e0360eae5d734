import { GatewayError } from "./gateway-error";

/** RFC 3986 path characters (pchar) and "/", still percent-encoded: nothing a URL parser would strip or reinterpret. */
const PATH_CHARS = /^[A-Za-z0-9\-._~!$&'()*+,;=:@%/]*$/;
/** The query may also hold "/" and "?"; "#", spaces and control characters never. */
const QUERY_CHARS = /^[A-Za-z0-9\-._~!$&'()*+,;=:@%/?]*$/;
/** Decoding stops here: deeper nesting is refused rather than guessed at. */
const MAX_DECODES = 4;

export interface CallerTarget {
  /** What followed /v1/tools/{toolId}, still percent-encoded, e.g. "/v1/chat/completions" ("" for none). */
  subpath: string;
  /** The raw query string without "?" ("" for none). */
  query: string;
}

const badPath = (why: string) => new GatewayError("bad_path", `the path or query after the tool id is not allowed: ${why}`);

/** A segment as an upstream would read it after decoding once, twice, …: its dot-segments and separators show. */
function decodedFully(segment: string): string {
  let current = segment;
  for (let round = 0; round < MAX_DECODES; round++) {
    let next: string;
    try {
      next = decodeURIComponent(current);
    } catch {
      throw badPath("malformed percent-encoding");
    }
    if (next === current) return current;
    current = next;
  }
  throw badPath("percent-encoding nested too deep");
}

/**
 * Splits the raw request target after `/v1/tools/{toolId}` and refuses anything that could leave
 * the tool's configured path: dot-segments in any encoding, encoded or literal separators other
 * than single "/", empty segments, and characters a URL parser would drop or reinterpret.
 */
export function callerTarget(rawUrl: string, toolSegmentEnd: number): CallerTarget {
  const queryStart = rawUrl.indexOf("?");
  const pathEnd = queryStart === -1 ? rawUrl.length : queryStart;
  const subpath = toolSegmentEnd >= pathEnd ? "" : rawUrl.slice(toolSegmentEnd, pathEnd);
  const query = queryStart === -1 ? "" : rawUrl.slice(queryStart + 1);
  if (!PATH_CHARS.test(subpath)) throw badPath("it holds characters that must be percent-encoded");
  if (!QUERY_CHARS.test(query)) throw badPath("the query holds characters that must be percent-encoded");
  if (subpath === "") return { subpath, query };
  const segments = subpath.slice(1).split("/");
  segments.forEach((segment, index) => {
    if (segment === "") {
      if (index === segments.length - 1) return;
      throw badPath("empty segments (doubled slashes) are not allowed");
    }
    const decoded = decodedFully(segment);
    // "..;x" is ".." to servlet containers (Tomcat, Jetty, Spring), which drop a segment's ";" parameters.
    const dots = decoded.split(";", 1)[0];
    if (dots === "." || dots === "..") throw badPath("'.' and '..' segments are not allowed, with or without ';' parameters");
    if (/[/\\]/.test(decoded) || [...decoded].some((char) => char.charCodeAt(0) < 0x20 || char === "\u007f")) throw badPath("encoded slashes, backslashes and control characters are not allowed");
  });
  return { subpath, query };
}

/**
 * Why the gateway would refuse a call's target after the tool id (a sub-path and query, as a
 * console try names it), or null: a try is checked by this rule before it is sent, since the
 * in-process request would resolve its dot-segments before the gateway saw them.
 */
export function badPathMessage(target: string): string | null {
  try {
    callerTarget(target, 0);
    return null;
  } catch (error) {
    if (error instanceof GatewayError && error.code === "bad_path") return error.message;
    throw error;
  }
}

/** Where the position after `/v1/tools/{toolId}` is in a raw request target, given the gateway's prefix. */
export function toolSegmentEnd(rawUrl: string, prefix: string): number {
  const start = prefix.length;
  const slash = rawUrl.indexOf("/", start);
  const queryStart = rawUrl.indexOf("?", start);
  const ends = [slash, queryStart, rawUrl.length].filter((index) => index !== -1);
  return Math.min(...ends);
}

/**
 * The upstream address for a call: the tool's URL with the caller's sub-path appended and the
 * queries joined. Checked once more after parsing: same origin, and still under the tool's path.
 */
export function upstreamUrl(toolUrl: string, target: CallerTarget): URL {
  const base = new URL(toolUrl);
  const basePath = base.pathname.replace(/\/+$/, "");
  const search = [base.search.slice(1), target.query].filter(Boolean).join("&");
  const url = new URL(`${base.origin}${basePath}${target.subpath}${search ? `?${search}` : ""}`);
  const underBase = url.pathname === basePath || url.pathname === `${basePath}/` || url.pathname.startsWith(`${basePath}/`);
  if (url.origin !== base.origin || !underBase) throw badPath("it leaves the tool's configured path");
  return url;
}
