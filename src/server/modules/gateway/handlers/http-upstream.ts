import type { HttpHandlerConfig } from "../../catalog/catalog-file";
import { upstreamUrl } from "../upstream-path";
import { UpstreamError, type ToolHandler } from "./types";

export const UNITS_HEADER = "x-tool-units";

/** Forwards the call to the operator's upstream; its status and body go back to the caller as they are. */
export function httpUpstream(config: HttpHandlerConfig): ToolHandler {
  return async (request) => {
    const url = upstreamUrl(config.url, request);
    const method = config.method === "ANY" ? request.method : config.method;
    const headers: Record<string, string> = { ...config.headers };
    if (request.contentType) headers["content-type"] = request.contentType;
    if (request.accept) headers.accept = request.accept;
    const signal = AbortSignal.any([request.signal, AbortSignal.timeout(config.timeoutMs)]);
    let response: Response;
    let body: Buffer;
    try {
      response = await fetch(url, {
        method,
        headers,
        body: method === "GET" || method === "HEAD" ? undefined : new Uint8Array(request.body),
        signal,
        redirect: "manual",
      });
      body = Buffer.from(await response.arrayBuffer());
    } catch (error) {
      if (request.signal.aborted) throw new UpstreamError("failed", "the caller went away");
      if (signal.aborted) throw new UpstreamError("timeout", `the tool did not answer within ${config.timeoutMs} ms`);
      throw new UpstreamError("failed", `the tool could not be reached: ${(error as Error).message}`);
    }
    const reported = response.headers.get(UNITS_HEADER);
    const units = reported === null || reported.trim() === "" ? NaN : Number(reported);
    return {
      status: response.status,
      contentType: response.headers.get("content-type") ?? "application/octet-stream",
      body,
      units: Number.isInteger(units) && units >= 0 ? units : undefined,
    };
  };
}
