import dgram from 'node:dgram';
import type { AddressInfo } from 'node:net';

/** What the fake server answers for one name: IPv4 addresses and the TTL (seconds) they carry. */
export interface DnsRecords {
  a: string[];
  ttl: number;
}

export interface FakeDnsServer {
  /** `127.0.0.1:<port>`, as GATEWAY_DNS_SERVERS takes it. */
  readonly address: string;
  /** Sets (or with undefined removes: NXDOMAIN) the records of a name; the next query sees them. */
  set(name: string, records: DnsRecords | undefined): void;
  /** Queries received per name (A and AAAA alike). */
  queries(name: string): number;
  close(): Promise<void>;
}

const TYPE_A = 1;
const CLASS_IN = 1;

/**
 * A DNS server on loopback UDP that answers A queries from a table a test changes at will (a
 * Kubernetes headless service scaling, a failover): the outside system the gateway's resolver
 * talks to, played for real over the wire (RFC 1035 messages). AAAA queries get an empty answer.
 */
export async function startFakeDnsServer(): Promise<FakeDnsServer> {
  const records = new Map<string, DnsRecords>();
  const counts = new Map<string, number>();
  const socket = dgram.createSocket('udp4');
  socket.on('message', (query, peer) => {
    const parsed = parseQuestion(query);
    if (parsed === undefined) return;
    counts.set(parsed.name, (counts.get(parsed.name) ?? 0) + 1);
    const entry = records.get(parsed.name);
    const answers = entry !== undefined && parsed.type === TYPE_A ? entry.a : [];
    socket.send(answer(query, parsed.questionEnd, entry === undefined ? 3 : 0, answers, entry?.ttl ?? 0), peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const port = (socket.address() as AddressInfo).port;
  return {
    address: `127.0.0.1:${port}`,
    set: (name, value) => {
      if (value === undefined) records.delete(name.toLowerCase());
      else records.set(name.toLowerCase(), value);
    },
    queries: (name) => counts.get(name.toLowerCase()) ?? 0,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

/** The first question: its name, type, and where it ends (the answer repeats it). */
function parseQuestion(message: Buffer): { name: string; type: number; questionEnd: number } | undefined {
  if (message.length < 12 || message.readUInt16BE(4) < 1) return undefined;
  const labels: string[] = [];
  let offset = 12;
  while (offset < message.length) {
    const length = message[offset] as number;
    offset += 1;
    if (length === 0) break;
    if (length > 63 || offset + length > message.length) return undefined;
    labels.push(message.toString('latin1', offset, offset + length));
    offset += length;
  }
  if (offset + 4 > message.length) return undefined;
  return { name: labels.join('.').toLowerCase(), type: message.readUInt16BE(offset), questionEnd: offset + 4 };
}

function answer(query: Buffer, questionEnd: number, rcode: number, addresses: readonly string[], ttl: number): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(query.readUInt16BE(0), 0);
  // QR, AA, RD copied, RA; the response code in the low bits.
  header.writeUInt16BE(0x8400 | (query.readUInt16BE(2) & 0x0100) | 0x0080 | rcode, 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(addresses.length, 6);
  const records = addresses.map((address) => {
    const record = Buffer.alloc(16);
    record.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
    record.writeUInt16BE(TYPE_A, 2);
    record.writeUInt16BE(CLASS_IN, 4);
    record.writeUInt32BE(ttl, 6);
    record.writeUInt16BE(4, 10);
    address.split('.').forEach((octet, i) => record.writeUInt8(Number(octet), 12 + i));
    return record;
  });
  return Buffer.concat([header, query.subarray(12, questionEnd), ...records]);
}
