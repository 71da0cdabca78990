// Type declarations of the idforge addon (bindings/node).

/** The next UUIDv7 of the process (increasing across worker threads), canonical text. */
export function uuid7(): string;
/** A version 4 UUID from the CSPRNG, canonical text. */
export function uuid4(): string;
/** The next monotonic ULID of the process, 26 Crockford base32 characters. */
export function ulid(): string;
/** What `idforge inspect --json` prints for id. layout (default "twitter") reads Snowflakes. */
export function inspect(id: string | bigint | number, layout?: string): Record<string, unknown>;
/** The fields of a Snowflake under layout (default "twitter"). */
export function decompose(
  id: bigint | string,
  layout?: string,
): { tick: bigint; unixMs: number; datacenter: number; worker: number; node: number; sequence: number };
/** The library's version. */
export const version: string;

export interface SnowflakeOptions {
  /** A preset ("twitter", "discord", "sonyflake", "instagram", "baidu") or a spec. */
  layout?: string;
  /** A fixed node ID; with leaseStore, exactly that node registered in the store. */
  node?: number;
  /** file:DIR, redis://HOST:PORT, etcd://HOST:PORT[,...], static:N?state=DIR, ordinal:HOST */
  leaseStore?: string;
}

/** Errors thrown by idforge carry the library's message and these fields. */
export interface IdforgeError extends Error {
  /** e.g. "IDFORGE_NODE_OUT_OF_RANGE" */
  code: string;
  /** e.g. "node_out_of_range" */
  status: string;
}

export class Snowflake {
  /** Leases a node ID when leaseStore is given (blocks, bounded by the store's timeout). */
  constructor(options: SnowflakeOptions);
  /** The next ID, strictly greater than every one this generator returned before. */
  next(): bigint;
  /** The next ID as decimal text (safe in JSON, where numbers above 2^53 lose digits). */
  nextString(): string;
  /** n consecutive IDs. */
  nextBatch(n: number): BigUint64Array;
  /** Stops issuing and gives a leased node ID back now. */
  release(): void;
  /** release(), then frees the generator. */
  close(): void;
  readonly node: number;
  readonly layout: string;
  readonly closed: boolean;
}
