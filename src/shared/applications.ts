import { z } from "zod";
import { userText } from "./text";

/* Access applications for tools that need approval: the rules the form and the server share. */

export const APPLICATION_STATUSES = ["pending", "approved", "rejected"] as const;
export type ApplicationStatus = (typeof APPLICATION_STATUSES)[number];

export const COMPANY_OR_PROJECT_MIN = 2;
export const COMPANY_OR_PROJECT_MAX = 100;
export const USE_CASE_MIN = 10;
export const USE_CASE_MAX = 2000;
export const EXPECTED_CALLS_MAX = 1_000_000_000_000;
export const CONTACT_MAX = 100;
export const REVIEWER_NOTE_MAX = 500;

export const APPLICATION_ERROR_CODES = {
  toolNotApplicable: "tool_not_applicable",
  alreadyPending: "application_already_pending",
  alreadyGranted: "tool_access_already_granted",
} as const;

/** What the form and the server say about a value; the web app translates the problem names. */
export type TextProblem = "required" | "tooShort" | "tooLong";
export type ExpectedCallsProblem = "required" | "notWhole" | "notPositive" | "tooLarge";
export type ContactProblem = "required" | "invalid" | "tooLong";

export const APPLICATION_MESSAGES = {
  toolRequired: "choose the tool you are applying for",
  companyRequired: "company or project is required",
  companyTooShort: `company or project must be at least ${COMPANY_OR_PROJECT_MIN} characters`,
  companyTooLong: `company or project must be at most ${COMPANY_OR_PROJECT_MAX} characters`,
  useCaseRequired: "describe your use case",
  useCaseTooShort: `use case must be at least ${USE_CASE_MIN} characters`,
  useCaseTooLong: `use case must be at most ${USE_CASE_MAX} characters`,
  callsRequired: "expected monthly calls is required",
  callsNotWhole: "expected monthly calls must be a whole number such as 10000",
  callsNotPositive: "expected monthly calls must be greater than 0",
  callsTooLarge: `expected monthly calls must be at most ${EXPECTED_CALLS_MAX}`,
  contactRequired: "contact is required",
  contactInvalid: "contact must be a phone number or an e-mail address",
  contactTooLong: `contact must be at most ${CONTACT_MAX} characters`,
} as const;

function textProblem(input: string, min: number, max: number): TextProblem | null {
  const text = input.trim();
  if (text === "") return "required";
  if (text.length < min) return "tooShort";
  if (text.length > max) return "tooLong";
  return null;
}

export const companyOrProjectProblem = (input: string) => textProblem(input, COMPANY_OR_PROJECT_MIN, COMPANY_OR_PROJECT_MAX);
export const useCaseProblem = (input: string) => textProblem(input, USE_CASE_MIN, USE_CASE_MAX);

/** The form's text input, or the number the API receives. */
export function expectedCallsProblem(input: string | number): ExpectedCallsProblem | null {
  if (typeof input === "string") {
    const text = input.trim().replace(/[,_\s]/g, "");
    if (text === "") return "required";
    if (!/^-?\d+$/.test(text)) return "notWhole";
    input = Number(text);
  }
  if (!Number.isInteger(input)) return "notWhole";
  if (input <= 0) return "notPositive";
  if (input > EXPECTED_CALLS_MAX) return "tooLarge";
  return null;
}

/** `10,000` or `10000` as typed, as the number the API takes. */
export function parseExpectedCalls(input: string): number {
  return Number(input.trim().replace(/[,_\s]/g, ""));
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** Landlines and mobiles, with a country code or not: 7 to 15 digits, spaces, dashes and brackets. */
const PHONE = /^\+?[\d\s()-]+$/;

export function contactProblem(input: string): ContactProblem | null {
  const text = input.trim();
  if (text === "") return "required";
  if (text.length > CONTACT_MAX) return "tooLong";
  if (EMAIL.test(text)) return null;
  const digits = text.replace(/\D/g, "").length;
  return PHONE.test(text) && digits >= 7 && digits <= 15 ? null : "invalid";
}

const PROBLEM_MESSAGES = {
  company: { required: APPLICATION_MESSAGES.companyRequired, tooShort: APPLICATION_MESSAGES.companyTooShort, tooLong: APPLICATION_MESSAGES.companyTooLong },
  useCase: { required: APPLICATION_MESSAGES.useCaseRequired, tooShort: APPLICATION_MESSAGES.useCaseTooShort, tooLong: APPLICATION_MESSAGES.useCaseTooLong },
  calls: {
    required: APPLICATION_MESSAGES.callsRequired,
    notWhole: APPLICATION_MESSAGES.callsNotWhole,
    notPositive: APPLICATION_MESSAGES.callsNotPositive,
    tooLarge: APPLICATION_MESSAGES.callsTooLarge,
  },
  contact: { required: APPLICATION_MESSAGES.contactRequired, invalid: APPLICATION_MESSAGES.contactInvalid, tooLong: APPLICATION_MESSAGES.contactTooLong },
} as const;

function checked<T, P extends string>(problem: (value: T) => P | null, messages: Record<P, string>) {
  return (value: T, ctx: z.RefinementCtx) => {
    const found = problem(value);
    if (found) ctx.addIssue({ code: "custom", message: messages[found] });
  };
}

/** POST /api/v1/console/applications */
export const createApplicationBody = z.strictObject({
  toolId: userText({ error: APPLICATION_MESSAGES.toolRequired }).trim().min(1, APPLICATION_MESSAGES.toolRequired).max(64).describe("The tool to get access to"),
  companyOrProject: userText({ error: APPLICATION_MESSAGES.companyRequired })
    .superRefine(checked(companyOrProjectProblem, PROBLEM_MESSAGES.company))
    .transform((s) => s.trim())
    .describe(`Your company or project, ${COMPANY_OR_PROJECT_MIN} to ${COMPANY_OR_PROJECT_MAX} characters`),
  useCase: userText({ error: APPLICATION_MESSAGES.useCaseRequired }, { multiline: true })
    .superRefine(checked(useCaseProblem, PROBLEM_MESSAGES.useCase))
    .transform((s) => s.trim())
    .describe(`What you will use the tool for, ${USE_CASE_MIN} to ${USE_CASE_MAX} characters`),
  expectedMonthlyCalls: z
    .number({ error: (issue) => (issue.input === undefined ? APPLICATION_MESSAGES.callsRequired : APPLICATION_MESSAGES.callsNotWhole) })
    .superRefine(checked(expectedCallsProblem, PROBLEM_MESSAGES.calls))
    .describe("How many calls a month you expect, a positive whole number"),
  contact: userText({ error: APPLICATION_MESSAGES.contactRequired })
    .superRefine(checked(contactProblem, PROBLEM_MESSAGES.contact))
    .transform((s) => s.trim())
    .describe("A phone number or e-mail address the reviewer can reach you at"),
});
export type CreateApplicationInput = z.input<typeof createApplicationBody>;

export const applicationSchema = z.object({
  id: z.number().int(),
  toolId: z.string(),
  toolName: z.string().describe("The tool's name in the catalog (its id when the catalog no longer lists it)"),
  companyOrProject: z.string(),
  useCase: z.string(),
  expectedMonthlyCalls: z.number().int(),
  contact: z.string(),
  status: z.enum(APPLICATION_STATUSES),
  reviewerNote: z.string().nullable().describe("The reviewer's note; always present on a rejection"),
  createdAt: z.string().describe("ISO 8601 time the application was made"),
  reviewedAt: z.string().nullable().describe("ISO 8601 time it was approved or rejected; null while pending"),
});
export type Application = z.infer<typeof applicationSchema>;

export const approvalToolSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  hasAccess: z.boolean().describe("Whether your API keys may call it already"),
  pending: z.boolean().describe("Whether an application of yours for it awaits review"),
});
export type ApprovalTool = z.infer<typeof approvalToolSchema>;

/** GET /api/v1/console/applications */
export const applicationListSchema = z.object({
  applications: z.array(applicationSchema).describe("Your applications, newest first"),
  tools: z.array(approvalToolSchema).describe("The tools that need an approved application"),
});
export type ApplicationList = z.infer<typeof applicationListSchema>;
