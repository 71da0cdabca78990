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

/** Options of readPublicId: mode and keyId, when given, must be the public ID's. */
export type ReadPublicIdOptions = Pick<MaskOptions, 'mode' | 'alphabet' | 'keyId'>;

/** A UUID in hyphenated text ('0190...-...-7...-...-...'), as uuid7() and uuid4() return it
 *  (typed string there). A value of this type picks the UUID overloads of mask and unmask; a
 *  plain string may be decimal digits or a public ID, so it gets the union. */
export type UuidString = `${string}-${string}-${string}-${string}-${string}`;

/** An integer mask and unmask read as a u63 value (1..2^63-1). */
type U63Value = bigint | number;
/** The options of a masking call on an integer: u63 is its only mode. */
type U63Options = MaskOptions & { mode?: 'auto' | 'u63' };
/** The options of a masking call on a UUID: any mode but u63. */
type UuidOptions = MaskOptions & { mode?: 'auto' | 'u128' | 'v7' };

/** What a public ID holds: value is a bigint for mode u63, a UUID string for u128 and v7. */
export type PublicIdInfo =
  | { mode: 'u63'; keyId: number; value: bigint }
  | { mode: 'u128' | 'v7'; keyId: number; value: string };

/** Masking keys: the first (primary) masks, every key unmasks what names it. Immutable; it
 *  belongs to the thread that made it, so each worker makes its own from the same source.
 *
 *  The overloads of mask and unmask give each call the type it returns, so typed code needs
 *  no cast: a public ID is a string; a raw u63 value a bigint; a UUID a string. */
export class MaskKeyring {
  private constructor();
  /** The keyring in a file of ID:SECRET entries (a Buffer for a path that is not UTF-8). */
  static fromFile(path: string | Uint8Array): MaskKeyring;
  /** The file IDFORGE_MASK_KEY_FILE names, else the entries in IDFORGE_MASK_KEYS. */
  static fromEnvironment(): MaskKeyring;
  /** Entries held in a string: for tests; real keys belong in a file or the environment. */
  static fromText(text: string): MaskKeyring;

  /** An integer 1..2^63-1 (bigint, safe-integer number or decimal string) or a UUID string to
   *  its public ID: 16 characters (u63), 26 (v7) or 27 (u128). */
  mask(value: bigint | number | string, options?: MaskOptions & { form?: 'public' }): string;
  /** An integer to its raw masked value, a bigint in 1..2^63-1. */
  mask(value: U63Value, options: U63Options & { form: 'raw' }): bigint;
  /** A UUID to its raw masked UUID (canonical text): a v4-shaped one for v7, 128 bits for u128. */
  mask(value: UuidString, options: UuidOptions & { form: 'raw' }): string;
  mask(value: string, options: MaskOptions & { form: 'raw'; mode: 'u128' | 'v7' }): string;
  /** Decimal text to its raw masked bigint. */
  mask(value: string, options: MaskOptions & { form: 'raw'; mode: 'u63' }): bigint;
  /** A string in mode auto with form raw: decimal digits give a bigint, a UUID a string. */
  mask(value: bigint | number | string, options?: MaskOptions): string | bigint;

  /** A raw masked integer back to the integer (after a rotation, give the keyId of the key
   *  that masked it: a raw value names no key). */
  unmask(value: U63Value, options?: U63Options): bigint;
  /** A raw masked UUID back to the UUID (canonical text). */
  unmask(value: UuidString, options?: UuidOptions): string;
  /** A public ID (or with form 'raw' decimal text) of mode u63 back to its bigint. */
  unmask(value: string, options: MaskOptions & { mode: 'u63' }): bigint;
  /** A public ID of mode u128 or v7, or a raw masked UUID, back to the UUID. */
  unmask(value: string, options: MaskOptions & { mode: 'u128' | 'v7' }): string;
  /** A public ID of any mode back to its bigint (u63) or UUID string. */
  unmask(value: bigint | number | string, options?: MaskOptions): bigint | string;

  /** The mode, key ID and value of a public ID (narrow on mode for the value's type). */
  readPublicId(text: string, options?: ReadPublicIdOptions): PublicIdInfo;
  /** Key IDs, the primary first. */
  readonly keyIds: number[];
  readonly primaryKeyId: number;
}
