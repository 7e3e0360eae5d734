import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { z } from "zod";
import { beijingDate, beijingDateTime, beijingIso } from "#shared/beijing-time";
import { CALLS_CSV_HEADER, callDetailSchema, callsPageSchema, callsQuerySchema, requestIdParams, type CallRow } from "#shared/calls";
import { AppError } from "../../errors";
import { csvStream } from "../../lib/csv";
import { noQuery } from "../../lib/no-query";
import { timeRange } from "../../lib/time-range";
import { allCalls, callDetail, listCalls, type CallsFilter } from "./service";

const filterQuery = callsQuerySchema.omit({ cursor: true, limit: true });
const DAY_MS = 86_400_000;

/** The console's call log: every call of the user's keys, filtered, paged, found by request id, exported. */
const callsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { retentionDays } = app.config.calls;

  /** The filter a query asks for; a range that starts before the oldest kept call is refused, not answered with a silent gap. */
  function filterFor(userId: number, query: z.output<typeof filterQuery>): CallsFilter {
    const range = timeRange(query);
    const oldestKept = new Date(app.clock.now().getTime() - retentionDays * DAY_MS);
    if ((range.from && range.from < oldestKept) || (range.to && range.to <= oldestKept)) {
      throw AppError.badRequest(`calls are kept ${retentionDays} days: start the range at ${beijingDateTime(oldestKept)} or later`);
    }
    return {
      userId,
      ...range,
      toolId: query.toolId || undefined,
      keyId: query.keyId,
      outcome: query.outcome,
      status: query.status,
      charged: query.charged === undefined ? undefined : query.charged === "true",
      slowerThanMs: query.slowerThanMs,
    };
  }

  app.get(
    "/console/calls",
    {
      schema: {
        tags: ["calls"],
        summary: "Every call of your keys, whatever its outcome (refused, failed, served), newest first",
        querystring: callsQuerySchema,
        response: { 200: callsPageSchema },
      },
    },
    async (request, reply) => {
      const page = await listCalls(app.db, filterFor(request.user.userId, request.query), { cursor: request.query.cursor, limit: request.query.limit });
      reply.header("cache-control", "no-store");
      return { ...page, retentionDays };
    },
  );

  app.get(
    "/console/calls.csv",
    {
      schema: {
        tags: ["calls"],
        summary: "The filtered calls as CSV, streamed",
        querystring: filterQuery,
      },
    },
    async (request, reply) => {
      const rows = allCalls(app.db, filterFor(request.user.userId, request.query));
      return reply
        .header("cache-control", "no-store")
        .header("content-disposition", `attachment; filename="calls-${beijingDate(app.clock.now())}.csv"`)
        .type("text/csv; charset=utf-8")
        .send(
          csvStream(CALLS_CSV_HEADER, rows, (row: CallRow) => [
            beijingIso(row.time),
            row.requestId,
            row.toolId,
            row.keyName,
            row.outcome,
            { numeric: row.httpStatus },
            row.upstreamStatus === null ? "" : { numeric: row.upstreamStatus },
            { numeric: row.amount },
            row.notChargedReason ?? "",
            { numeric: row.units },
            { numeric: row.prepaidUnits },
            row.streamed ? "true" : "false",
            { numeric: row.bytesIn },
            { numeric: row.bytesOut },
            row.clientNetwork,
            { numeric: row.totalMs },
            row.upstreamMs === null ? "" : { numeric: row.upstreamMs },
            { numeric: row.ownMs },
          ]),
        );
    },
  );

  app.get(
    "/console/calls/:requestId",
    {
      schema: {
        tags: ["calls"],
        summary: "One of your calls by its exact request id (x-request-id), across all pages: its timeline, charge and refund, and the error its caller got",
        params: requestIdParams,
        querystring: noQuery,
        response: { 200: callDetailSchema },
      },
    },
    async (request, reply) => {
      const detail = await callDetail(app.db, request.user.userId, request.params.requestId);
      if (!detail) throw AppError.notFound(`no call of yours has request id "${request.params.requestId}" in the last ${retentionDays} days`);
      reply.header("cache-control", "no-store");
      return detail;
    },
  );
};

export default callsRoutes;
