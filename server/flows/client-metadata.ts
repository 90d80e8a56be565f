import { BlockList, isIP } from 'node:net';

/** TRUSTED_PROXIES: comma-separated IPs or CIDRs whose X-Forwarded-For (and IP-risk header) we believe. */
export function parseTrustedProxies(spec: string): BlockList {
  const list = new BlockList();
  for (const raw of spec.split(',')) {
    const entry = raw.trim();
    if (!entry) continue;
    const [addr = '', bits] = entry.split('/');
    const family = isIP(addr) === 6 ? 'ipv6' : 'ipv4';
    if (!isIP(addr)) throw new Error(`TRUSTED_PROXIES: "${entry}" is not an IP address or CIDR`);
    if (bits === undefined) list.addAddress(addr, family);
    else list.addSubnet(addr, Number(bits), family);
  }
  return list;
}

const unmap = (ip: string): string =>
  ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip;

function trusted(list: BlockList, ip: string): boolean {
  const v = isIP(ip);
  return v !== 0 && list.check(ip, v === 6 ? 'ipv6' : 'ipv4');
}

/**
 * The client IP: the socket peer, unless the peer is a trusted proxy; then X-Forwarded-For is walked from the
 * right, skipping trusted hops, and the first untrusted address is the client (what the nearest proxy saw).
 */
export function resolveClientIp(peer: string, xff: string | undefined, proxies: BlockList): string {
  let ip = unmap(peer);
  if (!xff || !trusted(proxies, ip)) return ip;
  const hops = xff
    .split(',')
    .map((h) => unmap(h.trim()))
    .filter((h) => isIP(h) !== 0);
  for (let i = hops.length - 1; i >= 0; i--) {
    ip = hops[i] as string;
    if (!trusted(proxies, ip)) return ip;
  }
  return ip;
}

export interface Geolocation {
  country: string | null;
  region: string | null;
  city: string | null;
  source: 'geoip-lite';
}

type GeoLookup = (ip: string) => { country: string; region: string; city: string } | null;
let geoLoading: Promise<GeoLookup> | undefined;

/** geoip-lite keeps its database (shipped in the package, no network) in memory: load it once, on first use. */
export function loadGeo(): Promise<GeoLookup> {
  geoLoading ??= import('geoip-lite').then((m) => {
    const mod =
      (m as unknown as { default?: { lookup: GeoLookup } }).default ??
      (m as unknown as { lookup: GeoLookup });
    return (ip: string) => mod.lookup(ip);
  });
  return geoLoading;
}

/** Geolocations by address, per process: the database never changes while the process runs, and a client sends
 * many requests from one address (a lookup walks geoip-lite's tables: ~2 % of a sync flow's main-thread time). */
const GEO_CACHE_MAX = 10_000;
const geoCache = new Map<string, Readonly<Geolocation> | null>();

export async function geolocate(ip: string): Promise<Geolocation | null> {
  if (isIP(ip) === 0) return null;
  const cached = geoCache.get(ip);
  if (cached !== undefined) return cached && { ...cached };
  const hit = (await loadGeo())(ip);
  const geo: Geolocation | null = hit
    ? {
        country: hit.country || null,
        region: hit.region || null,
        city: hit.city || null,
        source: 'geoip-lite',
      }
    : null;
  if (geoCache.size >= GEO_CACHE_MAX) geoCache.clear();
  geoCache.set(ip, geo && { ...geo });
  return geo;
}

/** Header a trusted edge (e.g. an IP-intelligence proxy) sets; ignored unless the peer is a trusted proxy. */
export const IP_RISK_HEADER = 'veriscreen-ip-risk';
export const IP_RISK_VALUES = ['vpn', 'proxy', 'tor', 'hosting'] as const;
export type IpRiskSignal = (typeof IP_RISK_VALUES)[number];

const DEVICE_HEADERS = [
  'sec-ch-ua',
  'sec-ch-ua-platform',
  'sec-ch-ua-mobile',
  'x-device-model',
  'x-app-version',
];

export interface ClientMetadata {
  ip: string;
  peer_ip: string;
  user_agent: string | null;
  origin: string | null;
  device_headers: Record<string, string>;
  geolocation: Geolocation | null;
  /** null = no trusted signal available; [] = trusted edge says clean */
  ip_risk: IpRiskSignal[] | null;
  [k: string]: unknown;
}

/** What a flow creation knows of its caller, as plain values (services take no HTTP types): the request id, the
 * peer address and the request headers (lower-case names). */
export interface ClientRequest {
  request_id: string;
  ip: string;
  headers: Readonly<Record<string, string | undefined>>;
}

export async function captureClientMetadata(req: ClientRequest, proxies: BlockList): Promise<ClientMetadata> {
  const device: Record<string, string> = {};
  for (const h of DEVICE_HEADERS) {
    const v = req.headers[h];
    if (v) device[h] = v.slice(0, 200);
  }
  const peer = unmap(req.ip);
  const ip = resolveClientIp(peer, req.headers['x-forwarded-for'], proxies);
  let ipRisk: IpRiskSignal[] | null = null;
  const riskHeader = req.headers[IP_RISK_HEADER];
  if (riskHeader !== undefined && trusted(proxies, peer)) {
    ipRisk = riskHeader
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter((s): s is IpRiskSignal => (IP_RISK_VALUES as readonly string[]).includes(s));
  }
  return {
    ip,
    peer_ip: peer,
    user_agent: req.headers['user-agent']?.slice(0, 500) ?? null,
    origin: req.headers.origin ?? null,
    device_headers: device,
    geolocation: await geolocate(ip),
    ip_risk: ipRisk,
  };
}
