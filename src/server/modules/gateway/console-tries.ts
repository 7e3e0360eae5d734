import { randomBytes } from "node:crypto";
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import type { CallTrace } from "../calls/index";

/** The header a console try's gateway request carries in place of `Authorization`. */
export const CONSOLE_TRY_HEADER = "x-tollgate-console-try";

interface OpenTry {
  keyHash: string;
  end(trace: CallTrace): void;
}

/** A console try handed to the gateway: the token its request sends, and its call's trace once the call has ended. */
export interface ConsoleTryTicket {
  token: string;
  ended: Promise<CallTrace>;
  /** Forgets the token; true if it was still open (the gateway never took it). */
  close(): boolean;
}

/**
 * Tries the console hands to the gateway in this process (decision 057). The console knows a key
 * by its id, never its secret (only its hash is stored), so it cannot send `Authorization: Bearer`.
 * It opens a try for the key's hash and sends the gateway's own route a request (`app.inject`, so
 * it never leaves the process) carrying a random single-use token; the gateway takes the try by
 * that token and authenticates the key by its hash, then admits, limits, charges and records the
 * call as it would any other. A token is 32 random bytes, lives only in this map for one request
 * and is taken at its first use, so a request from outside cannot name one.
 */
export class ConsoleTries {
  private readonly open = new Map<string, OpenTry>();

  openTry(keyHash: string): ConsoleTryTicket {
    const token = randomBytes(32).toString("base64url");
    let end: (trace: CallTrace) => void = () => undefined;
    const ended = new Promise<CallTrace>((resolve) => (end = resolve));
    this.open.set(token, { keyHash, end });
    return { token, ended, close: () => this.open.delete(token) };
  }

  /** The try a request's header names, taken: a token works once. */
  take(header: string | string[] | undefined): OpenTry | null {
    if (typeof header !== "string") return null;
    const found = this.open.get(header);
    if (found) this.open.delete(header);
    return found ?? null;
  }
}

declare module "fastify" {
  interface FastifyInstance {
    /** Console tries on their way to the gateway (modules/gateway/console-tries.ts). */
    consoleTries: ConsoleTries;
  }
}

export const consoleTriesPlugin = fp(
  async function consoleTries(app: FastifyInstance) {
    app.decorate("consoleTries", new ConsoleTries());
  },
  { name: "console-tries" },
);
