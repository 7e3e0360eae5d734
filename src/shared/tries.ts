import { z } from "zod";
import { TOOL_ID_PATTERN } from "./api-keys";
import { userText } from "./text";

/** The most a try's request body may be, in bytes of UTF-8: checked by the page and by the server. */
export const TRY_BODY_MAX_BYTES = 64 * 1024;
/** The most of an answer relayed to the page; the rest is read (the call completes as any call would) but not shown. */
export const TRY_ANSWER_SHOWN_BYTES = 1024 * 1024;
/** How much of each body a kept try holds. */
export const TRY_KEPT_BODY_BYTES = 4096;
/** How many of a user's tries are kept. */
export const TRY_HISTORY_SIZE = 20;
/** Tries one console session may make per minute. */
export const TRIES_PER_MINUTE = 30;
export const TRY_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
/** The answer's headers the page is shown; any other (`Set-Cookie` and the like) never reaches it. */
export const TRY_SHOWN_HEADERS = ["content-type", "content-length", "retry-after", "idempotent-replayed", "x-tollgate-cost"] as const;

export const tryRequestSchema = z.strictObject({
  keyId: z.number().int().positive(),
  toolId: z.string().regex(TOOL_ID_PATTERN, "tool ids are lower-case letters, digits, '-' and '_'"),
  method: z.enum(TRY_METHODS).default("POST"),
  path: userText()
    .max(2048)
    .regex(/^(\/[^?#\s]*)?(\?[^#\s]*)?$/, "path must be empty or start with / or ?, without spaces")
    .default("")
    .describe("What follows the tool's id in the URL: a sub-path and query, or nothing"),
  contentType: userText().max(200).nullable().default("application/json"),
  body: z.string().describe(`The request body, at most ${TRY_BODY_MAX_BYTES} bytes of UTF-8`),
});
export type TryRequest = z.input<typeof tryRequestSchema>;

/** The lines of a try's answer (application/x-ndjson): a head, the body's parts as they arrive, an end. */
export type TryEvent =
  | { type: "head"; status: number; requestId: string; contentType: string | null; headers: Record<string, string> }
  | { type: "data"; base64: string }
  | {
      type: "end";
      outcome: string;
      amount: string;
      balance: string;
      totalMs: number;
      upstreamMs: number | null;
      truncated: boolean;
      tryId: number;
    };

export const keptTrySchema = z.object({
  id: z.number().int(),
  time: z.string().describe("When the try was made, Beijing time with its offset"),
  keyId: z.number().int(),
  toolId: z.string(),
  method: z.enum(TRY_METHODS),
  path: z.string(),
  contentType: z.string().nullable(),
  requestBody: z.string(),
  requestTruncated: z.boolean().describe(`The body was longer than ${TRY_KEPT_BODY_BYTES} bytes and is kept cut: it cannot be run again as it was`),
  requestId: z.string(),
  status: z.number().int(),
  responseContentType: z.string().nullable(),
  responseBody: z.string().nullable().describe("The answer as text, cut; null for an answer that is not text"),
  responseTruncated: z.boolean(),
  amount: z.string(),
});
export type KeptTry = z.infer<typeof keptTrySchema>;
export const keptTriesSchema = z.object({ tries: z.array(keptTrySchema) });

/** Whether an answer of this type is text (shown escaped, and kept); anything else is bytes (an image is shown as one). */
export function isTextual(contentType: string | null | undefined): boolean {
  const type = (contentType ?? "").split(";", 1)[0]!.trim().toLowerCase();
  return (
    type.startsWith("text/") ||
    /^application\/([\w.-]+\+)?(json|xml)$/.test(type) ||
    ["application/javascript", "application/x-ndjson", "application/x-www-form-urlencoded", "image/svg+xml"].includes(type)
  );
}
