import type { FastifySchemaValidationError } from "fastify";
import { z } from "zod";

/**
 * Zod's own messages ("Invalid option: expected one of \"lifetime\"|\"day\"|\"month\"", "Invalid
 * input: expected number, received NaN", "Invalid ISO datetime") are written for programmers. A
 * schema's own message (`.min(1, "name is required")`, a refinement's) is kept as it is; zod's
 * defaults are replaced by a sentence built from the issue's code, saying what is accepted. Zod's
 * English defaults all begin like this.
 */
const ZOD_DEFAULT_MESSAGE = /^(?:Invalid |Too (?:small|big)|Unrecognized key)/;

/** An example a user can copy, for formats whose name alone does not say what to send. */
const FORMAT_TEXT: Record<string, string> = {
  datetime: "a date-time such as 2026-11-30T00:00:00+08:00",
  date: "a date such as 2026-11-30",
  time: "a time such as 09:30:00",
  email: "an email address",
  url: "a URL such as https://example.com/hook",
  uuid: "a UUID",
  ipv4: "an IPv4 address",
  ipv6: "an IPv6 address",
};

const TYPE_TEXT: Record<string, string> = {
  number: "a number",
  int: "a whole number",
  string: "text",
  boolean: "true or false",
  array: "a list",
  object: "an object",
  bigint: "a whole number",
};

type Params = Record<string, unknown>;

/** Names and values as written, but an empty one as "" (a query's `=1` has a parameter with no name). */
const list = (values: unknown[]) => values.map((v) => (typeof v === "string" && v !== "" ? v : JSON.stringify(v))).join(", ");

/** Follows an issue's path into the route's schema; undefined where the path leaves it. */
function schemaAt(schema: unknown, path: readonly string[]): z.ZodType | undefined {
  let at = schema instanceof z.ZodType ? schema : undefined;
  for (let i = 0; at && i <= path.length; i++) {
    // Wrappers (optional, nullable, default, a transform's input side) do not change what a value must be.
    for (let unwrapped = true; unwrapped && at; ) {
      unwrapped = false;
      if (at instanceof z.ZodOptional || at instanceof z.ZodNullable || at instanceof z.ZodDefault || at instanceof z.ZodPrefault) {
        at = at.unwrap() as z.ZodType;
        unwrapped = true;
      } else if (at instanceof z.ZodPipe) {
        at = at.in as z.ZodType;
        unwrapped = true;
      }
    }
    if (i === path.length || !at) break;
    const key = path[i]!;
    if (at instanceof z.ZodObject) at = (at.shape as Record<string, z.ZodType>)[key];
    else if (at instanceof z.ZodArray) at = at.element as z.ZodType;
    else at = undefined;
  }
  return at;
}

function isWholeNumber(schema: z.ZodType | undefined): boolean {
  return schema instanceof z.ZodNumber && schema.isInt;
}

/** What a part of the request calls its names: a query string has parameters, a body fields. */
const NAMES: Record<string, [one: string, many: string]> = { querystring: ["parameter", "parameters"] };
const FIELDS: [one: string, many: string] = ["field", "fields"];

/** What the value must be, as the end of a sentence that starts with the field's name. */
function plainDetail(issue: FastifySchemaValidationError, context: string | undefined, leaf: () => z.ZodType | undefined): string {
  const params = issue.params as Params;
  switch (issue.keyword) {
    case "invalid_type": {
      if (/received undefined$/.test(issue.message ?? "")) return "is required";
      const expected = String(params.expected);
      if (expected === "number" && isWholeNumber(leaf())) return "must be a whole number";
      return `must be ${TYPE_TEXT[expected] ?? expected}`;
    }
    case "invalid_value": {
      const values = Array.isArray(params.values) ? params.values : [];
      return values.length === 1 ? `must be ${list(values)}` : `must be one of ${list(values)}`;
    }
    case "invalid_format": {
      const format = String(params.format);
      return `must be ${FORMAT_TEXT[format] ?? `in the ${format} format`}`;
    }
    case "too_small":
    case "too_big": {
      const small = issue.keyword === "too_small";
      const bound = small ? params.minimum : params.maximum;
      const n = Number(bound);
      if (params.origin === "string") {
        if (small && n === 1) return "must not be empty";
        return `must be ${small ? "at least" : "at most"} ${String(bound)} character${n === 1 ? "" : "s"}`;
      }
      if (params.origin === "array" || params.origin === "set") {
        if (small && n === 1) return "must hold at least one item";
        return `must hold ${small ? "at least" : "at most"} ${String(bound)} item${n === 1 ? "" : "s"}`;
      }
      if (params.inclusive === false) return `must be ${small ? "greater" : "less"} than ${String(bound)}`;
      return `must be ${small ? "at least" : "at most"} ${String(bound)}`;
    }
    case "not_multiple_of":
      return `must be a multiple of ${String(params.divisor)}`;
    case "unrecognized_keys": {
      const keys = Array.isArray(params.keys) ? params.keys : [];
      const [one, many] = NAMES[context ?? ""] ?? FIELDS;
      return `does not take the ${keys.length > 1 ? many : one} ${list(keys)}`;
    }
    default:
      return "is not valid";
  }
}

const WHOLE_PART: Record<string, string> = { body: "the request body", querystring: "the query string", params: "the path", headers: "the headers" };

/**
 * The `validation_failed` message for a request's first problem: `field: detail` (docs/site/errors.md;
 * the web reads the field before the colon), where the detail is the schema's own message or, for
 * zod's defaults, a plain sentence such as `spendLimitPeriod: must be one of lifetime, day, month`.
 */
export function validationMessage(issue: FastifySchemaValidationError | undefined, context: string | undefined, routeSchema: unknown): string {
  if (!issue) return "invalid request";
  const path = issue.instancePath.replace(/^\//, "").split("/").filter(Boolean);
  const field = path.join(".");
  const message = issue.message ?? "";
  const custom = message !== "" && !ZOD_DEFAULT_MESSAGE.test(message);
  if (custom) return field ? `${field}: ${message}` : message;
  const schemas = (routeSchema ?? {}) as Record<string, unknown>;
  const detail = plainDetail(issue, context, () => schemaAt(context ? schemas[context] : undefined, path));
  return field ? `${field}: ${detail}` : `${WHOLE_PART[context ?? ""] ?? "the request"} ${detail}`;
}
