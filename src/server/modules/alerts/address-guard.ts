import dns from "node:dns";
import type { LookupFunction } from "node:net";
import ipaddr from "ipaddr.js";

/**
 * Webhook URLs are typed by users and fetched by the server, so they must not reach the
 * operator's network. An address is admitted only when it is ordinary public unicast: loopback,
 * private (10/8, 172.16/12, 192.168/16, fc00::/7), link-local (169.254/16 with the cloud
 * metadata address, fe80::/10), carrier-grade NAT, multicast, reserved, and IPv6 forms that
 * embed an IPv4 address (mapped, NAT64, 6to4, Teredo) are all refused.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(address);
  return parsed.range() === "unicast";
}

function isLoopback(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === "loopback";
}

/**
 * The message names the host, not the address it resolved to, nor why it failed to resolve: it
 * reaches the user (the delivery's last error), and either would tell them how this server
 * resolves internal names (a name that resolves to a private address and one that does not exist
 * must read the same). The resolver's own error, when there was one, is the `cause`, for the log.
 */
export class BlockedAddressError extends Error {
  readonly code = "EBLOCKEDADDRESS";
  constructor(host: string, cause?: unknown) {
    super(`${host} does not resolve to a public address`, cause === undefined ? undefined : { cause });
    this.name = "BlockedAddressError";
  }
}

export interface GuardOptions {
  /** The operator's test setting: loopback targets admitted. */
  allowLoopback: boolean;
}

export function addressAllowed(address: string, options: GuardOptions): boolean {
  return isPublicAddress(address) || (options.allowLoopback && isLoopback(address));
}

type LookupAnswer = { address: string; family: number };

/**
 * A `lookup` for the socket itself: it resolves as usual, then refuses the connection when the
 * name does not resolve or any address it resolves to is not allowed, with one error for both.
 * Being the lookup of the connection, it checks the address actually connected to, not one looked
 * up earlier (no DNS rebinding between check and use).
 */
export function guardedLookup(options: GuardOptions, resolve: LookupFunction = dns.lookup): LookupFunction {
  return (hostname, lookupOptions, callback) => {
    resolve(hostname, { ...lookupOptions, all: true }, (error, addresses) => {
      if (error) return callback(new BlockedAddressError(hostname, error), "", 0);
      const list = (Array.isArray(addresses) ? addresses : [{ address: addresses, family: 0 }]) as LookupAnswer[];
      const blocked = list.find((a) => !addressAllowed(a.address, options));
      if (list.length === 0) return callback(new BlockedAddressError(hostname, new Error("no address")), "", 0);
      if (blocked) return callback(new BlockedAddressError(hostname, new Error(`resolves to ${blocked.address}`)), "", 0);
      if (lookupOptions.all) return (callback as unknown as (e: null, a: LookupAnswer[]) => void)(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
}

/** localhost and every name under it: loopback by definition (RFC 6761), whatever a resolver says. */
const isLoopbackName = (host: string) => /(^|\.)localhost\.?$/i.test(host);

/**
 * Why a webhook URL may not be used, or null: https only (http to loopback with the test setting),
 * no credentials, and an IP literal or a loopback name must be allowed. Other names are checked
 * when they resolve, at each send (guardedLookup).
 */
export function webhookUrlProblem(raw: string, options: GuardOptions): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "webhook URL must be an https:// address";
  }
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const literal = ipaddr.isValid(host) ? host : null;
  const loopbackHttp = url.protocol === "http:" && options.allowLoopback && (isLoopbackName(host) || (literal !== null && isLoopback(literal)));
  if (url.protocol !== "https:" && !loopbackHttp) return "webhook URL must be an https:// address";
  if (url.username || url.password) return "webhook URL must not hold a user name or password";
  if (literal && !addressAllowed(literal, options)) return `webhook URL must not point at ${literal}, which is not a public address`;
  if (isLoopbackName(host) && !options.allowLoopback) return `webhook URL must not point at ${host}, which is not a public address`;
  return null;
}
