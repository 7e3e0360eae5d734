import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { applicationListSchema, applicationSchema, createApplicationBody, type Application } from "#shared/applications";
import { noQuery } from "../../lib/no-query";
import type { Tool } from "../catalog/index";
import { approvalTools, createApplication, listApplications, type ApplicationRow } from "./service";

const tags = ["applications"];
function toApplication(row: ApplicationRow, catalog: ReadonlyMap<string, Tool>): Application {
  return {
    id: row.id,
    toolId: row.toolId,
    toolName: catalog.get(row.toolId)?.name ?? row.toolId,
    companyOrProject: row.companyOrProject,
    useCase: row.useCase,
    expectedMonthlyCalls: row.expectedMonthlyCalls,
    contact: row.contact,
    status: row.status,
    reviewerNote: row.reviewerNote,
    createdAt: row.createdAt.toISOString(),
    reviewedAt: row.reviewedAt?.toISOString() ?? null,
  };
}

/** The signed-in user's own access applications; operators review them with `tollgate admin applications`. */
const applicationRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    "/console/applications",
    {
      schema: {
        tags,
        summary: "Your access applications and the tools that need one",
        querystring: noQuery,
        response: { 200: applicationListSchema },
      },
    },
    async (request, reply) => {
      const userId = request.user.userId;
      const [rows, tools] = await Promise.all([listApplications(app.db, userId), approvalTools(app.db, app.catalog.values(), userId)]);
      reply.header("cache-control", "no-store");
      return { applications: rows.map((row) => toApplication(row, app.catalog)), tools };
    },
  );

  app.post(
    "/console/applications",
    {
      schema: {
        tags,
        summary: "Apply for access to a tool that needs approval",
        body: createApplicationBody,
        response: { 201: applicationSchema },
      },
    },
    async (request, reply) => {
      const row = await createApplication(app.db, {
        userId: request.user.userId,
        tool: app.catalog.get(request.body.toolId),
        body: request.body,
        now: app.clock.now(),
      });
      reply.header("cache-control", "no-store");
      return reply.code(201).send(toApplication(row, app.catalog));
    },
  );
};

export default applicationRoutes;
