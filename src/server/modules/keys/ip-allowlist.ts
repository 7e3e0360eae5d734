import { BlockList, isIP } from "node:net";

function family(address: string): "ipv4" | "ipv6" | null {
  const version = isIP(address);
  return version === 4 ? "ipv4" : version === 6 ? "ipv6" : null;
}

/**
 * Whether a client address matches one of the rules (addresses or CIDR ranges, IPv4 or IPv6).
 * No rules: every address. IPv4-mapped IPv6 addresses (::ffff:a.b.c.d) match IPv4 rules.
 */
export function ipAllowed(rules: readonly string[], clientIp: string): boolean {
  if (rules.length === 0) return true;
  const clientFamily = family(clientIp);
  if (!clientFamily) return false;
  return blockListFor(rules).check(clientIp, clientFamily);
}

/** Built once per rules array: the gateway's key cache hands the same array to every call with that key. */
const built = new WeakMap<readonly string[], BlockList>();

function blockListFor(rules: readonly string[]): BlockList {
  let list = built.get(rules);
  if (!list) {
    list = new BlockList();
    for (const rule of rules) {
      const [address = "", prefix] = rule.split("/");
      const ruleFamily = family(address);
      if (!ruleFamily) continue;
      if (prefix === undefined) list.addAddress(address, ruleFamily);
      else list.addSubnet(address, Number(prefix), ruleFamily);
    }
    built.set(rules, list);
  }
  return list;
}
