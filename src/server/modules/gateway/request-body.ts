import { finished, Readable, Transform } from "node:stream";
import { GatewayError } from "./gateway-error";

/** Built-in tools read their whole body; this is the most they read. */
export const BUILTIN_MAX_REQUEST_BYTES = 10 * 1024 * 1024;

export function bodyTooLarge(limit: number): GatewayError {
  const size = limit >= 1024 * 1024 ? `${+(limit / (1024 * 1024)).toFixed(2)} MB` : `${limit} bytes`;
  return new GatewayError("body_too_large", `the request body is larger than this tool accepts (${size})`);
}

/** Refuses a body whose declared length is over the limit, before any of it is read. */
export function checkDeclaredLength(contentLength: string | undefined, limit: number): void {
  if (contentLength !== undefined && Number(contentLength) > limit) throw bodyTooLarge(limit);
}

/**
 * The whole body, read only up to `limit` bytes (413 beyond). Read with listeners rather than an
 * async iterator, which cost a small body more than the rest of its reading.
 */
export function readWhole(body: Buffer | Readable, limit: number): Promise<Buffer> {
  if (Buffer.isBuffer(body)) return body.length > limit ? Promise.reject(bodyTooLarge(limit)) : Promise.resolve(body);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const take = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
      else body.destroy(bodyTooLarge(limit));
    };
    body.on("data", take);
    const stopWatching = finished(body, (error) => {
      stopWatching();
      body.off("data", take);
      if (error) reject(error);
      else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    });
  });
}

/** The body as it arrives, failing with 413 `body_too_large` once more than `limit` bytes have passed. */
export function limitedBody(body: Buffer | Readable, limit: number): Buffer | Readable {
  if (Buffer.isBuffer(body)) {
    if (body.length > limit) throw bodyTooLarge(limit);
    return body;
  }
  let size = 0;
  const limited = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      if (size > limit) return callback(bodyTooLarge(limit));
      callback(null, chunk);
    },
  });
  body.on("error", (error) => limited.destroy(error));
  // The error reaches the caller through the upstream request that reads this stream (as its
  // `errored`), which may already have stopped listening.
  limited.on("error", () => undefined);
  return body.pipe(limited);
}
