// Type declarations of the idforge addon (bindings/node).

/** The next UUIDv7 of the process (increasing across worker threads), canonical text. */
export function uuid7(): string;
/** A version 4 UUID from the CSPRNG, canonical text. */
export function uuid4(): string;
/** The next monotonic ULID of the process, 26 Crockford base32 characters. */
export function ulid(): string;
/** What `idforge inspect --json` prints for id. layout (default "twitter") reads Snowflakes.
 *  A number must be a safe integer (an ID above 2^53 - 1 is a bigint or a string). */
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

/** A fresh keyring line "ID:64 hex digits" from the OS CSPRNG: a secret, for a 0600 file. */
export function newMaskKey(keyId: number): string;

export interface MaskOptions {
  /** 'auto' (default): u63 for an integer, v7 for a UUIDv7, u128 for any other UUID; to unmask,
   *  v7 for a v4-shaped UUID. A public ID's mode must equal a mode given. */
  mode?: 'auto' | 'u63' | 'u128' | 'v7';
  /** mask: 'public' (default) gives the short text ID, 'raw' the masked bigint or UUID.
   *  unmask: 'raw' reads a string as a masked decimal number or UUID, not a public ID. */
  form?: 'public' | 'raw';
  /** The public ID's alphabet (default 'base58'). */
  alphabet?: 'base58' | 'base62';
  /** The key to use (default: the primary); for a public ID, the key it must name. */
  keyId?: number;
}

/** What a public ID holds. */
export interface PublicIdInfo {
  mode: 'u63' | 'u128' | 'v7';
  keyId: number;
  /** The internal value: a bigint (u63) or a UUID string. */
  value: bigint | string;
}

/** Masking keys: the first (primary) masks, every key unmasks what names it. Immutable; it
 *  belongs to the thread that made it, so each worker makes its own from the same source. */
export class MaskKeyring {
  private constructor();
  /** The keyring in a file of ID:SECRET entries (a Buffer for a path that is not UTF-8). */
  static fromFile(path: string | Uint8Array): MaskKeyring;
  /** The file IDFORGE_MASK_KEY_FILE names, else the entries in IDFORGE_MASK_KEYS. */
  static fromEnvironment(): MaskKeyring;
  /** Entries held in a string: for tests; real keys belong in a file or the environment. */
  static fromText(text: string): MaskKeyring;
  /** An integer 1..2^63-1 (bigint, safe-integer number or decimal string) or a UUID string to
   *  its public ID (a string), or with form 'raw' to a masked bigint or UUID string. */
  mask(value: bigint | number | string, options?: MaskOptions): string | bigint;
  /** A public ID back to its bigint or UUID string; a bigint, a number or a UUID string is a
   *  raw masked value (after a rotation, give the keyId of the key that masked it). */
  unmask(value: bigint | number | string, options?: MaskOptions): bigint | string;
  /** The mode, key ID and value of a public ID. */
  readPublicId(text: string, options?: Pick<MaskOptions, 'alphabet'>): PublicIdInfo;
  /** Key IDs, the primary first. */
  readonly keyIds: number[];
  readonly primaryKeyId: number;
}
