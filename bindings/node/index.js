'use strict';
// idforge for Node.js: the addon (idforge.node, over libidforge.so) and a thin layer.
// IDFORGE_NODE_ADDON names the addon file where it is not beside this one (a build tree).
const path = require('node:path');

const native = require(process.env.IDFORGE_NODE_ADDON || path.join(__dirname, 'idforge.node'));

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
  if (typeof id === 'bigint' || typeof id === 'number') id = String(id);
  if (typeof id !== 'string') throw new TypeError(`inspect() takes an ID as string or bigint, not ${typeof id}`);
  return JSON.parse(layout === undefined ? native.inspectJson(id) : native.inspectJson(id, layout));
}

// Echoed input is cut, so a huge argument does not make a huge message.
function shown(text) {
  return text.length > 64 ? `${text.slice(0, 64)}...` : text;
}

function decompose(id, layout) {
  if (typeof id === 'string') {
    const text = id;
    if (!/^[0-9]+$/.test(text)) {
      const e = new RangeError(`decompose '${shown(text).replace(/\0/g, '\\0')}': an ID is a decimal number`);
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

module.exports = {
  uuid7: native.uuid7,
  uuid4,
  ulid: native.ulid,
  Snowflake,
  inspect,
  decompose,
  version: native.version,
};
