'use strict';
// Options objects: every own key goes through the library's idforge_check_option, so Node
// refuses a misspelt option with the same words as Python and the CLI, and never ignores one
// (an ignored lease store left a fixed node unregistered). User text in messages is quoted by
// idforge_quote.
const test = require('node:test');
const assert = require('node:assert/strict');
const { idforge } = require('./helpers');

const { Snowflake, MaskKeyring } = idforge;
const kr = MaskKeyring.fromText('1:000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f');

function refused(fn, pattern) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof TypeError, `${e.constructor.name}: ${e.message}`);
    assert.equal(e.code, 'IDFORGE_INVALID_ARGUMENT', e.message);
    assert.equal(e.status, 'invalid_argument');
    if (pattern) assert.match(e.message, pattern);
    return true;
  });
}

test("Python's spelling lease_store is refused, naming leaseStore", () => {
  refused(() => new Snowflake({ node: 3, lease_store: 'file:/x' }),
          /^new Snowflake: unknown option 'lease_store': it takes layout, node, leaseStore \(did you mean 'leaseStore'\?\)$/);
});

test('a misspelt Snowflake option is refused, listing the ones it takes', () => {
  refused(() => new Snowflake({ nod: 1 }), /unknown option 'nod': it takes layout, node, leaseStore$/);
  refused(() => new Snowflake({ node: 1, Layout: 'discord' }), /unknown option 'Layout'/);
  refused(() => new Snowflake({ node: 1, leasestore: 'file:/x' }), /unknown option 'leasestore'/);
  // Checked before anything is opened: a bad layout does not hide the unknown name.
  refused(() => new Snowflake({ layout: 'nope', nod: 1 }), /unknown option 'nod'/);
});

test('symbol, non-enumerable and odd keys are refused and shown escaped', () => {
  refused(() => new Snowflake({ node: 1, [Symbol('lease')]: 'file:/x' }), /unknown option 'Symbol\(lease\)'/);
  refused(() => new Snowflake({ node: 1, [Symbol()]: 1 }), /unknown option 'Symbol\(\)'/);
  refused(() => new Snowflake({ node: 1, [Symbol.iterator]: 1 }), /Symbol\(Symbol.iterator\)/);
  const hidden = { node: 1 };
  Object.defineProperty(hidden, 'leaseStore_', { value: 'file:/x', enumerable: false });
  refused(() => new Snowflake(hidden), /unknown option 'leaseStore_'/);
  refused(() => new Snowflake({ node: 1, 'node\0': 2 }), /unknown option 'node\\x00'/);
  refused(() => new Snowflake({ node: 1, '\x1b[31mred': 2 }), /unknown option '\\x1b\[31mred'/);
  refused(() => new Snowflake({ node: 1, 'bidi\u202e': 2 }), /unknown option 'bidi\\u202e'/);
  // A lone surrogate has no UTF-8 form: it is read as U+FFFD, never as another name.
  refused(() => new Snowflake({ node: 1, '\udcffnode': 2 }), /unknown option/);
  refused(() => new Snowflake({ node: 1, 7: 2 }), /unknown option '7'/);
  assert.throws(() => new Snowflake({ node: 1, ['x'.repeat(100000)]: 2 }),
                (e) => e instanceof TypeError && /unknown option 'x+\.\.\.x+'/.test(e.message) && e.message.length < 400);
});

test('an options value that is not an object is a TypeError', () => {
  for (const options of [null, 5, 'node=1', [], [1], () => {}, true, 1n, Symbol('o'), undefined]) {
    refused(() => new Snowflake(options), /^new Snowflake: options must be an object/);
  }
  for (const options of [null, 5, 'raw', [], () => {}]) {
    refused(() => kr.mask(5n, options), /^mask: options must be an object/);
    refused(() => kr.unmask(5n, options), /^unmask: options must be an object/);
    refused(() => kr.readPublicId('MddbJ9eWq3n1mGH2', options), /^readPublicId: options must be an object/);
  }
  refused(() => new Snowflake([]), /not an array/);
  refused(() => new Snowflake(null), /not null/);
  // Inherited names are not own keys: an object made by a class or Object.create passes.
  const s = new Snowflake(Object.assign(Object.create({ layout: 'discord' }), { node: 5 }));
  assert.ok(s.layout.includes('epoch=1420070400000'));
  s.close();
});

test('mask options: key_id and other misspellings are refused as before, in the library words', () => {
  refused(() => kr.mask(5n, { key_id: 1 }),
          /^mask: unknown option 'key_id': it takes mode, form, alphabet, keyId \(did you mean 'keyId'\?\)$/);
  refused(() => kr.unmask(6360351038900542679n, { form: 'raw', key_id: 1 }), /^unmask: unknown option 'key_id'/);
  refused(() => kr.readPublicId('MddbJ9eWq3n1mGH2', { form: 'raw' }),
          /^readPublicId: unknown option 'form': it takes mode, alphabet, keyId$/);
  refused(() => kr.readPublicId('MddbJ9eWq3n1mGH2', { key_id: 1 }), /did you mean 'keyId'/);
  refused(() => kr.mask(5n, { [Symbol('mode')]: 'u63' }), /unknown option 'Symbol\(mode\)'/);
  assert.equal(kr.mask(4001n, { mode: 'u63', form: 'public', alphabet: 'base58', keyId: 1 }), 'MddbJ9eWq3n1mGH2');
});

test('readPublicId honours mode and keyId, as unmask does', () => {
  const id = kr.mask(4001n);
  assert.deepEqual(kr.readPublicId(id, { mode: 'u63', keyId: 1 }), { mode: 'u63', keyId: 1, value: 4001n });
  assert.throws(() => kr.readPublicId(id, { mode: 'v7' }),
                (e) => e instanceof RangeError && e.code === 'IDFORGE_INVALID_ARGUMENT' && /of mode u63, not v7/.test(e.message));
  assert.throws(() => kr.readPublicId(id, { keyId: 3 }),
                (e) => e.code === 'IDFORGE_KEY_ERROR' && /made with mask key 1, not 3/.test(e.message));
});

test('option values and IDs in messages are quoted by the library', () => {
  assert.throws(() => kr.mask(5n, { mode: 'u\x1b[2J' }), (e) => e instanceof RangeError && /mode 'u\\x1b\[2J'/.test(e.message));
  assert.throws(() => idforge.decompose('12\n34'), (e) => e.code === 'IDFORGE_PARSE_ERROR' && /'12\\n34'/.test(e.message));
  assert.throws(() => idforge.decompose('1\u202e2'), (e) => /'1\\u202e2'/.test(e.message));
  assert.throws(() => idforge.decompose(`x${'9'.repeat(100000)}`), (e) => e.message.length < 200 && /\.\.\./.test(e.message));
});
