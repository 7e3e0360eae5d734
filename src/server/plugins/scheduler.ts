import fastifySchedule from "@fastify/schedule";
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { AsyncTask, SimpleIntervalJob } from "toad-scheduler";

declare module "fastify" {
  interface FastifyInstance {
    /** Runs `job` every `intervalMs` once the app is ready, never two runs at once, until the app closes; a failed run is logged. */
    every(name: string, intervalMs: number, job: () => Promise<unknown>): void;
  }
}

/** The one way periodic jobs (sweeps, the alerts job) are scheduled: toad-scheduler through @fastify/schedule. */
export default fp(
  async function schedulerPlugin(app: FastifyInstance) {
    await app.register(fastifySchedule);
    app.decorate("every", (name: string, intervalMs: number, job: () => Promise<unknown>) => {
      const task = new AsyncTask(
        name,
        () => job().then(() => undefined),
        (error) => app.log.error({ err: error, job: name }, "a periodic job failed"),
      );
      app.addHook("onReady", async () => {
        app.scheduler.addSimpleIntervalJob(new SimpleIntervalJob({ milliseconds: intervalMs }, task, { id: name, preventOverrun: true }));
      });
    });
  },
  { name: "scheduler" },
);
