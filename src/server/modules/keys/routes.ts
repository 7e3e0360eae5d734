import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import {
  apiKeyIdParams,
  apiKeyListSchema,
  apiKeySchema,
  createApiKeyBody,
  createdApiKeySchema,
  deletedApiKeySchema,
  updateApiKeyBody,
} from "#shared/api-keys";
import { noQuery } from "../../lib/no-query";
import { answerWithSecret, SECRET_REPLAY_TTL_MS } from "../../lib/secret-answers";
import { toApiKey } from "./key-view";
import { createApiKey, deleteApiKey, listApiKeys, rotateApiKeySecret, updateApiKey } from "./service";

const tags = ["api keys"];
/** The signed-in user's own API keys; anyone else's key is simply not found. */
const keyRoutes: FastifyPluginAsyncZod = async (app) => {
  const isTool = (id: string) => app.catalog.has(id);
  app.secretReissuers.set("api_key", async (id, now) => {
    const rotated = await rotateApiKeySecret(app.db, id);
    return rotated && { key: toApiKey(rotated.row, now), secret: rotated.secret };
  });

  app.get(
    "/console/keys",
    { schema: { tags, summary: "List your API keys", querystring: noQuery, response: { 200: apiKeyListSchema } } },
    async (request, reply) => {
      const rows = await listApiKeys(app.db, request.user.userId);
      const now = app.clock.now();
      reply.header("cache-control", "no-store");
      return { keys: rows.map((row) => toApiKey(row, now)), max: app.config.apiKeysMaxPerUser };
    },
  );

  app.post(
    "/console/keys",
    {
      config: { idempotencyTtlMs: SECRET_REPLAY_TTL_MS },
      schema: {
        tags,
        summary: "Create an API key; the response holds the full key, shown this once",
        body: createApiKeyBody,
        response: { 201: createdApiKeySchema },
      },
    },
    async (request, reply) => {
      const now = app.clock.now();
      const { row, secret } = await createApiKey(app.db, {
        userId: request.user.userId,
        body: request.body,
        now,
        maxPerUser: app.config.apiKeysMaxPerUser,
        isTool,
      });
      answerWithSecret(request, reply, { kind: "api_key", ref: row.id, fields: ["key", "secret"] });
      return reply.code(201).send({ key: toApiKey(row, now), secret });
    },
  );

  app.patch(
    "/console/keys/:id",
    {
      schema: {
        tags,
        summary: "Rename a key, change its limits, or disable and enable it",
        params: apiKeyIdParams,
        body: updateApiKeyBody,
        response: { 200: apiKeySchema },
      },
    },
    async (request) => {
      const now = app.clock.now();
      const row = await updateApiKey(app.db, { userId: request.user.userId, id: request.params.id, body: request.body, now, isTool });
      return toApiKey(row, now);
    },
  );

  app.delete(
    "/console/keys/:id",
    {
      schema: { tags, summary: "Delete a key; it stops working at once", params: apiKeyIdParams, response: { 200: deletedApiKeySchema } },
    },
    async (request) => {
      await deleteApiKey(app.db, { userId: request.user.userId, id: request.params.id, now: app.clock.now() });
      return { id: request.params.id, deleted: true as const };
    },
  );
};

export default keyRoutes;
