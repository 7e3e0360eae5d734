import { Readable } from "node:stream";

/**
 * How an upstream body ended. A broken one says how many bytes the caller's copy was given and
 * whether the caller was holding the stream back (not reading) when it broke.
 */
export type StreamEnd = { ok: true } | { ok: false; error: Error; delivered: number; callerHeldBack: boolean };

/**
 * The caller's copy of a streamed upstream body, with back-pressure: the upstream is read only as
 * fast as the caller takes it. `finish` settles the call when the upstream ends or breaks, and the
 * caller's copy ends only after it did, so an answer whose charge was not recorded never looks
 * complete; a broken upstream (or a failed `finish`) breaks the caller's copy too. If the caller
 * goes away (`callerGone` aborts, or the copy is destroyed), the upstream is still read to its end
 * to learn the units.
 */
export function relay(upstream: Readable, observe: (chunk: Buffer) => void, callerGone: AbortSignal, finish: (end: StreamEnd) => Promise<void>): Readable {
  let attached = true;
  let delivered = 0;
  let callerHeldBack = false;
  const detach = () => {
    if (!attached) return;
    attached = false;
    callerHeldBack = false;
    upstream.resume();
  };
  const copy = new Readable({
    read() {
      callerHeldBack = false;
      upstream.resume();
    },
    destroy(error, callback) {
      detach();
      callback(error);
    },
  });
  upstream.on("data", (chunk: Buffer) => {
    observe(chunk);
    if (!attached) return;
    delivered += chunk.length;
    if (!copy.push(chunk)) {
      callerHeldBack = true;
      upstream.pause();
    }
  });
  let finished = false;
  upstream.once("end", () => {
    finished = true;
    finish({ ok: true }).then(
      () => attached && copy.push(null),
      (error: Error) => copy.destroy(error),
    );
  });
  const broken = (error: Error) => {
    if (finished) return;
    finished = true;
    finish({ ok: false, error, delivered, callerHeldBack }).then(
      () => copy.destroy(error),
      () => copy.destroy(error),
    );
  };
  upstream.once("error", broken);
  upstream.once("close", () => broken(new Error("the tool's answer stopped before its end")));
  if (callerGone.aborted) detach();
  else callerGone.addEventListener("abort", detach, { once: true });
  return copy;
}
