import type { ToolHandler } from "./types";

/** Returns exactly what it was sent, with the same content type. */
export const echo: ToolHandler = async (request) => ({
  status: 200,
  contentType: request.contentType ?? "application/octet-stream",
  body: request.body,
});
