import ipaddr from "ipaddr.js";

/**
 * The network a caller's address belongs to, as a user is shown it: the /24 of an IPv4 address
 * (an IPv4-mapped IPv6 one too), the /48 of an IPv6 one. The whole address stays for operators.
 */
export function callerNetwork(address: string): string {
  if (!ipaddr.isValid(address)) return "unknown";
  const parsed = ipaddr.process(address);
  if (parsed.kind() === "ipv4") {
    const [a, b, c] = (parsed as ipaddr.IPv4).octets;
    return `${a}.${b}.${c}.0/24`;
  }
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 3);
  return `${new ipaddr.IPv6([...parts, 0, 0, 0, 0, 0]).toString()}/48`;
}
