'use strict';
// idforge for Node.js: the addon (idforge.node, over libidforge.so) and a thin layer.
// IDFORGE_NODE_ADDON names the addon file where it is not beside this one (a build tree); a
// relative path is taken from the working directory (require() would look it up as a package).
const path = require('node:path');

const native = require(process.env.IDFORGE_NODE_ADDON ? path.resolve(process.env.IDFORGE_NODE_ADDON)
                                                      : path.join(__dirname, 'idforge.node'));

// uuid4() serves 128 UUIDs from one native call: the call costs more than making a UUID.
// Each worker thread has its own block (module state is per thread in Node).
const BLOCK = 128;
let block = '';
let at = BLOCK;

function uuid4() {
  if (at === BLOCK) {
    block = native.uuid4Block(BLOCK);
    at = 0;
  }
  const i = at++ * 36;
  return block.slice(i, i + 36);
}

function inspect(id, layout) {
  // A number above 2^53 - 1 is not the ID it was read from (2^60 prints as ...847000): refused
  // rather than decoded as another ID. Such IDs are bigint or string.
  if (typeof id === 'number' && !Number.isSafeInteger(id)) {
    const e = new RangeError(`inspect(): ${id} is not a safe integer (an ID above 2^53 - 1 loses ` +
                             'digits as a number; pass it as a bigint or a string)');
    e.code = 'IDFORGE_INVALID_ARGUMENT';
    e.status = 'invalid_argument';
    throw e;
  }
  if (typeof id === 'bigint' || typeof id === 'number') id = String(id);
  if (typeof id !== 'string') throw new TypeError(`inspect() takes an ID as string or bigint, not ${typeof id}`);
  return JSON.parse(layout === undefined ? native.inspectJson(id) : native.inspectJson(id, layout));
}

// User text in a message, escaped and cut as every face of the library quotes it
// (idforge_quote): a huge argument does not make a huge message, a control byte is shown.
const { quote } = native;

function decompose(id, layout) {
  if (typeof id === 'string') {
    const text = id;
    if (!/^[0-9]+$/.test(text)) {
      const e = new RangeError(`decompose '${quote(text)}': an ID is a decimal number`);
      e.code = 'IDFORGE_PARSE_ERROR';
      e.status = 'parse_error';
      throw e;
    }
    id = BigInt(text);
  }
  if (typeof id !== 'bigint') throw new TypeError(`decompose() takes an ID as bigint or string, not ${typeof id}`);
  return layout === undefined ? native.decompose(id) : native.decompose(id, layout);
}

const { sfNew, sfNext, sfNextString, sfNextBatch, sfRelease, sfClose, sfClosed, sfNode, sfLayout } = native;

/** A Snowflake generator: new Snowflake({layout, node | leaseStore}). See index.d.ts. */
class Snowflake {
  #h;

  constructor(options) {
    this.#h = sfNew(options);
  }

  next() { return sfNext(this.#h); }

  nextString() { return sfNextString(this.#h); }

  nextBatch(n) { return sfNextBatch(this.#h, n); }

  release() { sfRelease(this.#h); }

  close() { sfClose(this.#h); }

  get node() { return sfNode(this.#h); }

  get layout() { return sfLayout(this.#h); }

  get closed() { return sfClosed(this.#h); }
}

// ---- masking -----------------------------------------------------------------------------

const { mkFromFile, mkFromEnvironment, mkFromText, mkKeyIds, mkMask, mkUnmask, mkReadPublic, checkOptions } = native;
const FORMS = { public: false, raw: true };
// idforge.h's idforge_options: which names an options object may hold (the addon asks the
// library for each own key, so every face refuses a misspelt option in the same words).
const OPTIONS_MASK = 1;
const OPTIONS_READ_PUBLIC_ID = 2;
const TOKEN = Symbol('MaskKeyring');

function optionError(name, value, rule) {
  const e = new RangeError(`${name} ${value}: expected ${rule}`);
  e.code = 'IDFORGE_INVALID_ARGUMENT';
  e.status = 'invalid_argument';
  return e;
}

function optionTypeError(message) {
  const e = new TypeError(message);
  e.code = 'IDFORGE_INVALID_ARGUMENT';
  e.status = 'invalid_argument';
  return e;
}

// An option from its table; a string outside it is a RangeError, another type a TypeError.
function choice(options, name, table, rule) {
  const v = options[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw optionTypeError(`${name} must be a string, not ${typeof v}`);
  if (!Object.hasOwn(table, v)) throw optionError(name, `'${quote(v)}'`, rule);
  return table[v];
}

// A mode (kind 0) or alphabet (kind 1) option, its name read by the library, which knows the
// names every face takes; another type is a TypeError.
function named(options, name, kind) {
  const v = options[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw optionTypeError(`${name} must be a string, not ${typeof v}`);
  return native.maskName(kind, v);
}

// {mode, form, alphabet, keyId} into the addon's numbers. A misspelt option ({key_id: 1}) is
// refused, not ignored: a raw unmask would otherwise read the value with the primary key and
// return a wrong ID without an error.
function maskOptions(options, kind, call) {
  if (options === undefined) return [-1, false, 0, -1];
  checkOptions(options, kind, call);
  const mode = named(options, 'mode', 0) ?? -1;
  const raw = (kind === OPTIONS_MASK ? choice(options, 'form', FORMS, "'public' or 'raw'") : undefined) ?? false;
  const alphabet = named(options, 'alphabet', 1) ?? 0;
  let keyId = options.keyId;
  if (keyId === undefined || keyId === null) {
    keyId = -1;
  } else if (typeof keyId !== 'number') {
    throw optionTypeError(`keyId must be a number, not ${typeof keyId}`);
  } else if (!Number.isInteger(keyId) || keyId < 0 || keyId > 2 ** 31 - 1) {
    throw optionError('keyId', keyId, 'a key ID, an integer in 0..57');
  }
  return [mode, raw, alphabet, keyId];
}

/** Masking keys: MaskKeyring.fromFile(path), .fromEnvironment(), .fromText(text). See index.d.ts. */
class MaskKeyring {
  #h;

  constructor(token, handle) {
    if (token !== TOKEN) {
      throw new TypeError('make a MaskKeyring with MaskKeyring.fromFile(path), fromEnvironment() or fromText(text)');
    }
    this.#h = handle;
  }

  static fromFile(path) { return new MaskKeyring(TOKEN, mkFromFile(path)); }

  static fromEnvironment() { return new MaskKeyring(TOKEN, mkFromEnvironment()); }

  static fromText(text) { return new MaskKeyring(TOKEN, mkFromText(text)); }

  mask(value, options) {
    if (options === undefined) return mkMask(this.#h, value, -1, false, 0, -1);
    const [mode, raw, alphabet, keyId] = maskOptions(options, OPTIONS_MASK, 'mask');
    return mkMask(this.#h, value, mode, raw, alphabet, keyId);
  }

  unmask(value, options) {
    if (options === undefined) return mkUnmask(this.#h, value, -1, false, 0, -1);
    const [mode, raw, alphabet, keyId] = maskOptions(options, OPTIONS_MASK, 'unmask');
    return mkUnmask(this.#h, value, mode, raw, alphabet, keyId);
  }

  readPublicId(text, options) {
    const [mode, , alphabet, keyId] = maskOptions(options, OPTIONS_READ_PUBLIC_ID, 'readPublicId');
    return mkReadPublic(this.#h, text, mode, alphabet, keyId);
  }

  get keyIds() { return mkKeyIds(this.#h); }

  get primaryKeyId() { return mkKeyIds(this.#h)[0]; }

  toString() { return `MaskKeyring(key IDs ${this.keyIds.join(', ')})`; }
}

module.exports = {
  uuid7: native.uuid7,
  uuid4,
  ulid: native.ulid,
  Snowflake,
  inspect,
  decompose,
  MaskKeyring,
  newMaskKey: native.newMaskKey,
  version: native.version,
};
