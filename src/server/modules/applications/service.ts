import { and, asc, desc, eq } from "drizzle-orm";
import type { z } from "zod";
import { APPLICATION_ERROR_CODES, type ApplicationStatus, type ApprovalTool, type createApplicationBody } from "#shared/applications";
import { beijingDateTime } from "#shared/beijing-time";
import type { Db } from "../../db/client";
import { toolApplications, toolGrants, users } from "../../db/schema/index";
import { AppError } from "../../errors";
import type { Tool } from "../catalog/index";

export type ApplicationRow = typeof toolApplications.$inferSelect;
type CreateInput = z.output<typeof createApplicationBody>;

/** The user's applications, newest first. */
export function listApplications(db: Db, userId: number): Promise<ApplicationRow[]> {
  return db
    .select()
    .from(toolApplications)
    .where(eq(toolApplications.userId, userId))
    .orderBy(desc(toolApplications.createdAt), desc(toolApplications.id));
}

/** The catalog's tools that need approval, with where the user stands for each. */
export async function approvalTools(db: Db, catalog: Iterable<Tool>, userId: number): Promise<ApprovalTool[]> {
  const [grants, pending] = await Promise.all([
    db.select({ toolId: toolGrants.toolId }).from(toolGrants).where(eq(toolGrants.userId, userId)),
    db
      .select({ toolId: toolApplications.toolId })
      .from(toolApplications)
      .where(and(eq(toolApplications.userId, userId), eq(toolApplications.status, "pending"))),
  ]);
  const granted = new Set(grants.map((g) => g.toolId));
  const waiting = new Set(pending.map((p) => p.toolId));
  return [...catalog]
    .filter((tool) => tool.requiresApproval)
    .map((tool) => ({ id: tool.id, name: tool.name, description: tool.description, hasAccess: granted.has(tool.id), pending: waiting.has(tool.id) }));
}

/**
 * Files an application for a tool that needs approval. Refused (400, nothing written) for a tool
 * the catalog does not list or that needs no approval, when the user already has access, and
 * while another application of theirs for the tool is pending.
 */
export async function createApplication(
  db: Db,
  input: { userId: number; tool: Tool | undefined; body: CreateInput; now: Date },
): Promise<ApplicationRow> {
  const { tool, userId, body } = input;
  if (!tool) throw AppError.badRequest(`there is no tool "${body.toolId}"`, APPLICATION_ERROR_CODES.toolNotApplicable);
  if (!tool.requiresApproval) {
    throw AppError.badRequest(`${tool.name} needs no approval: every API key may call it`, APPLICATION_ERROR_CODES.toolNotApplicable);
  }
  return db.transaction(async (tx) => {
    const [grant] = await tx
      .select({ toolId: toolGrants.toolId })
      .from(toolGrants)
      .where(and(eq(toolGrants.userId, userId), eq(toolGrants.toolId, tool.id)));
    if (grant) throw AppError.badRequest(`you already have access to ${tool.name}`, APPLICATION_ERROR_CODES.alreadyGranted);
    // The partial unique index on (user, tool) among pending rows makes a second one a no-op, also under races.
    const [created] = await tx
      .insert(toolApplications)
      .values({
        userId,
        toolId: tool.id,
        companyOrProject: body.companyOrProject,
        useCase: body.useCase,
        expectedMonthlyCalls: body.expectedMonthlyCalls,
        contact: body.contact,
        createdAt: input.now,
      })
      .onConflictDoNothing()
      .returning();
    if (!created) {
      throw AppError.badRequest(
        `you already have a pending application for ${tool.name}: wait for its review`,
        APPLICATION_ERROR_CODES.alreadyPending,
      );
    }
    return created;
  });
}

export interface ApplicationWithPhone extends ApplicationRow {
  phone: string;
}

/** For the operators: every application in a status (or all), oldest first. */
export function applicationsForReview(db: Db, status: ApplicationStatus | "all"): Promise<ApplicationWithPhone[]> {
  const query = db
    .select({ application: toolApplications, phone: users.phone })
    .from(toolApplications)
    .innerJoin(users, eq(users.id, toolApplications.userId))
    .$dynamic();
  return (status === "all" ? query : query.where(eq(toolApplications.status, status)))
    .orderBy(asc(toolApplications.createdAt), asc(toolApplications.id))
    .then((rows) => rows.map((r) => ({ ...r.application, phone: r.phone })));
}

export class ReviewError extends Error {}

/**
 * Approves or rejects a pending application. An approval grants the tool in the same transaction,
 * so the user's next gateway call gets through. Throws ReviewError for an unknown or already reviewed one.
 */
export async function reviewApplication(
  db: Db,
  input: { id: number; decision: "approved" | "rejected"; note: string | null; now: Date },
): Promise<ApplicationWithPhone> {
  return db.transaction(async (tx) => {
    const [reviewed] = await tx
      .update(toolApplications)
      .set({ status: input.decision, reviewerNote: input.note, reviewedAt: input.now })
      .where(and(eq(toolApplications.id, input.id), eq(toolApplications.status, "pending")))
      .returning();
    if (!reviewed) {
      const [existing] = await tx.select().from(toolApplications).where(eq(toolApplications.id, input.id));
      if (!existing) throw new ReviewError(`there is no application ${input.id}`);
      throw new ReviewError(
        `application ${input.id} was already ${existing.status} at ${existing.reviewedAt ? beijingDateTime(existing.reviewedAt) : "an unknown time"}: only pending applications can be reviewed`,
      );
    }
    if (input.decision === "approved") {
      await tx.insert(toolGrants).values({ userId: reviewed.userId, toolId: reviewed.toolId, grantedAt: input.now }).onConflictDoNothing();
    }
    const [owner] = await tx.select({ phone: users.phone }).from(users).where(eq(users.id, reviewed.userId));
    return { ...reviewed, phone: owner?.phone ?? "" };
  });
}
