import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { BlockList, isIP, type LookupFunction } from "node:net";

/** Never sent to, whatever the operator allows: link-local (cloud metadata lives there), unspecified, multicast. */
const NEVER = new BlockList();
NEVER.addSubnet("169.254.0.0", 16, "ipv4");
NEVER.addSubnet("0.0.0.0", 8, "ipv4");
NEVER.addSubnet("224.0.0.0", 3, "ipv4");
NEVER.addSubnet("fe80::", 10, "ipv6");
NEVER.addAddress("fd00:ec2::254", "ipv6");
NEVER.addAddress("::", "ipv6");
NEVER.addSubnet("ff00::", 8, "ipv6");

/** Loopback and private ranges: sent to only with FORWARD_ALLOW_PRIVATE=true (a destination inside the network). */
const PRIVATE = new BlockList();
PRIVATE.addSubnet("127.0.0.0", 8, "ipv4");
PRIVATE.addSubnet("10.0.0.0", 8, "ipv4");
PRIVATE.addSubnet("172.16.0.0", 12, "ipv4");
PRIVATE.addSubnet("192.168.0.0", 16, "ipv4");
PRIVATE.addSubnet("100.64.0.0", 10, "ipv4");
PRIVATE.addSubnet("198.18.0.0", 15, "ipv4");
PRIVATE.addAddress("::1", "ipv6");
PRIVATE.addSubnet("fc00::", 7, "ipv6");

/** Why an address may not be connected to, or undefined. IPv4-mapped IPv6 addresses are judged as IPv4. */
export function addressRefusal(address: string, allowPrivate: boolean): string | undefined {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  const ip = mapped ? mapped[1]! : address;
  const family = isIP(ip) === 6 ? "ipv6" : "ipv4";
  if (NEVER.check(ip, family)) return `${address} is a link-local, metadata or reserved address: never forwarded to`;
  if (!allowPrivate && PRIVATE.check(ip, family))
    return `${address} is a loopback or private address (FORWARD_ALLOW_PRIVATE=true allows it)`;
  return undefined;
}

export class AddressRefused extends Error {
  override name = "AddressRefused";
  readonly code = "EADDRREFUSED";
}

/**
 * A `lookup` for node:http that checks every address a name resolves to before the socket connects to it: the
 * check is on the address actually connected to, so a name that resolves elsewhere after the save (DNS rebinding)
 * is refused too. A literal IP never reaches a lookup; `hostRefusal` checks those.
 */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, "", 0);
      for (const a of addresses) {
        const refusal = addressRefusal(a.address, allowPrivate);
        if (refusal) return callback(new AddressRefused(`${hostname}: ${refusal}`), "", 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: "ENOTFOUND" }), "", 0);
      callback(null, first.address, first.family);
    });
  };
}

/** A URL's host when it is a literal IP address (node:http connects to it without a lookup): its refusal. */
export function hostRefusal(url: URL, allowPrivate: boolean): string | undefined {
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  return isIP(host) ? addressRefusal(host, allowPrivate) : undefined;
}
