'use strict';
// MaskKeyring: the core's known answers (tests/core/mask_vectors_test.cpp) through the addon,
// rotation, typed errors for wrong keys, mistyped IDs, out-of-range values and wrong types,
// messages that never show a secret, the CLI's answers, and keyrings in worker threads.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { Worker } = require('node:worker_threads');
const { idforge, leaseDir, cli } = require('./helpers');

const { MaskKeyring } = idforge;
// The public test keys of tests/core/mask_support.hpp (never use them anywhere else).
const COUNTING = '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f';
const DESCENDING = 'fffefdfcfbfaf9f8f7f6f5f4f3f2f1f0efeeedecebeae9e8e7e6e5e4e3e2e1e0';
const V7 = '017f22e2-79b0-7cc3-98c4-dc0c0c07398f';
const V4 = '919108f7-52d1-4320-9bac-f847db4148a8';
const kr = MaskKeyring.fromText(`1:${COUNTING}`);

function throwsCoded(fn, cls, code, pattern) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof cls, `${e.constructor.name}: ${e.message}`);
    assert.equal(e.code, code, e.message);
    if (pattern) assert.match(e.message, pattern);
    return true;
  });
}

test('known answers: u63', () => {
  assert.equal(kr.mask(4001n), 'MddbJ9eWq3n1mGH2');
  assert.equal(kr.mask(4001), 'MddbJ9eWq3n1mGH2');
  assert.equal(kr.mask('4001'), 'MddbJ9eWq3n1mGH2');
  assert.equal(kr.mask(4001n, { alphabet: 'base62' }), 'AaZtQ4anDKrkd562');
  assert.equal(kr.mask(4001n, { form: 'raw' }), 8888165847862036857n);
  assert.equal(kr.mask(2n ** 63n - 1n, { form: 'raw', mode: 'u63' }), 970847276949345342n);
  assert.equal(kr.unmask('MddbJ9eWq3n1mGH2'), 4001n);
  assert.equal(kr.unmask('AaZtQ4anDKrkd562', { alphabet: 'base62' }), 4001n);
  assert.equal(kr.unmask(8888165847862036857n), 4001n);
  assert.equal(kr.unmask('8888165847862036857', { form: 'raw' }), 4001n);
});

test('known answers: UUIDs', () => {
  assert.equal(kr.mask(V7), '2Z1WBwQe58xTLy7NrhuepCgabz');
  assert.equal(kr.mask(V7.toUpperCase()), '2Z1WBwQe58xTLy7NrhuepCgabz');
  assert.equal(kr.mask(V7, { form: 'raw' }), '0dde117f-3573-4008-bf85-de15727c4cd1');
  assert.equal(kr.unmask('0dde117f-3573-4008-bf85-de15727c4cd1'), V7);
  assert.equal(kr.unmask('2Z1WBwQe58xTLy7NrhuepCgabz'), V7);
  assert.equal(kr.mask(V7, { mode: 'u128' }), 'YHTGk5gzei7o2jitbPFkwgR412g');
  assert.equal(kr.mask(V7, { mode: 'u128', form: 'raw' }), 'fd57639d-7de2-5d5b-80e6-ecc65a67977f');
  assert.equal(kr.unmask('fd57639d-7de2-5d5b-80e6-ecc65a67977f', { mode: 'u128' }), V7);
  assert.equal(kr.mask(V4, { form: 'raw' }), '5986d403-d9b8-3300-706a-f85f5e1de524');
  assert.equal(kr.unmask('C4CUYKbZk3ihEKJB8dtJPmramnR'), V4);
  assert.deepEqual(kr.readPublicId('2Z1WBwQe58xTLy7NrhuepCgabz'), { mode: 'v7', keyId: 1, value: V7 });
  assert.deepEqual(kr.readPublicId('AaZtQ4anDKrkd562', { alphabet: 'base62' }),
                   { mode: 'u63', keyId: 1, value: 4001n });
});

test('round trips', () => {
  for (const n of [1n, 2n, 4001n, 2n ** 32n, 2n ** 62n, 2n ** 63n - 1n]) {
    assert.equal(kr.unmask(kr.mask(n)), n);
    const m = kr.mask(n, { form: 'raw' });
    assert.ok(m >= 1n && m < 2n ** 63n);
    assert.equal(kr.unmask(m), n);
  }
  for (let i = 0; i < 200; i++) {
    const v7 = idforge.uuid7();
    const v4 = idforge.uuid4();
    assert.equal(kr.unmask(kr.mask(v7)), v7);
    assert.equal(kr.unmask(kr.mask(v4)), v4);
    assert.equal(kr.mask(v7, { form: 'raw' })[14], '4');
  }
});

test('the same answers as the CLI', (t) => {
  const dir = leaseDir(t);
  const keys = path.join(dir, 'mask.keys');
  fs.writeFileSync(keys, `1:${COUNTING}\n`);
  const values = ['4001', '1541815603606036480', V7, V4];
  let r = cli('mask', ...values, '--key-file', keys);
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(r.stdout.split(/\s+/).filter(Boolean), values.map((v) => kr.mask(v)));
  r = cli('mask', ...values, '--form', 'raw', '--key-file', keys);
  assert.deepEqual(r.stdout.split(/\s+/).filter(Boolean), values.map((v) => String(kr.mask(v, { form: 'raw' }))));
});

test('rotation: the new key masks, old public IDs still resolve', () => {
  const old = MaskKeyring.fromText(`1:${COUNTING}`);
  const rotated = MaskKeyring.fromText(`2:${DESCENDING}\n1:${COUNTING} # retired\n`);
  assert.deepEqual(rotated.keyIds, [2, 1]);
  assert.equal(rotated.primaryKeyId, 2);
  const oldId = old.mask(4001n);
  const newId = rotated.mask(4001n);
  assert.notEqual(oldId, newId);
  assert.equal(rotated.unmask(oldId), 4001n);
  assert.equal(rotated.unmask(newId), 4001n);
  assert.equal(rotated.readPublicId(oldId).keyId, 1);
  assert.equal(rotated.readPublicId(newId).keyId, 2);
  assert.equal(rotated.mask(4001n, { keyId: 1 }), oldId);
  const raw = old.mask(4001n, { form: 'raw' });
  assert.equal(rotated.unmask(raw, { keyId: 1 }), 4001n);
  assert.notEqual(rotated.unmask(raw), 4001n);
  throwsCoded(() => MaskKeyring.fromText(`2:${DESCENDING}`).unmask(oldId), Error, 'IDFORGE_KEY_ERROR',
              /names mask key 1.*it holds 2/);
});

test('a wrong key is not ours, and the message shows no secret', () => {
  const other = MaskKeyring.fromText(`1:${DESCENDING}`);
  assert.throws(() => other.unmask('MddbJ9eWq3n1mGH2'), (e) => {
    assert.equal(e.code, 'IDFORGE_NOT_OURS');
    assert.equal(e.status, 'not_ours');
    assert.match(e.message, /keyed check does not match/);
    assert.ok(!e.message.includes(DESCENDING) && !e.message.includes(COUNTING));
    return true;
  });
});

test('mistyped and malformed public IDs are RangeErrors with IDFORGE_PARSE_ERROR', () => {
  const good = kr.mask(4001n);
  const typo = `${good.slice(0, 4)}${good[4] === 'K' ? 'L' : 'K'}${good.slice(5)}`;
  const swapped = good.slice(0, 6) + good[7] + good[6] + good.slice(8);
  for (const bad of [typo, swapped]) throwsCoded(() => kr.unmask(bad), RangeError, 'IDFORGE_PARSE_ERROR', /mistyped/);
  throwsCoded(() => kr.unmask(good.slice(0, 15)), RangeError, 'IDFORGE_PARSE_ERROR', /15 characters/);
  throwsCoded(() => kr.unmask(`0${good.slice(1)}`), RangeError, 'IDFORGE_PARSE_ERROR', /'0' is not a base58/);
  throwsCoded(() => kr.unmask(`${good.slice(0, 3)}\0${good.slice(4)}`), RangeError, 'IDFORGE_PARSE_ERROR',
              /'\\x00' is not a base58 character/);
  throwsCoded(() => kr.unmask(`${good.slice(0, 14)}é`), RangeError, 'IDFORGE_PARSE_ERROR', /position 14: '\\xc3'/);
  // A lone surrogate has no UTF-8 form: it is read as U+FFFD (3 bytes), never as the ID.
  throwsCoded(() => kr.unmask(`${good.slice(0, 15)}\udcff`), RangeError, 'IDFORGE_PARSE_ERROR', /18 characters/);
  throwsCoded(() => kr.readPublicId('nope'), RangeError, 'IDFORGE_PARSE_ERROR', /4 characters/);
});

test('values outside 1..2^63-1 are RangeErrors naming the value', () => {
  for (const v of [0, 0n, -1, -1n, 2n ** 63n, 2n ** 64n, 2 ** 53, 1.5, NaN, '0', '9223372036854775808',
    '99999999999999999999999']) {
    for (const call of [() => kr.mask(v), () => kr.mask(v, { form: 'raw' }), () => kr.unmask(v, { form: 'raw' })]) {
      throwsCoded(call, RangeError, 'IDFORGE_INVALID_ARGUMENT', /1\.\.2\^63-1/);
    }
  }
  throwsCoded(() => kr.unmask(0n), RangeError, 'IDFORGE_INVALID_ARGUMENT', /1\.\.2\^63-1/);
});

test('modes must suit the value', () => {
  throwsCoded(() => kr.mask(5n, { mode: 'v7' }), RangeError, 'IDFORGE_INVALID_ARGUMENT', /takes a UUID/);
  throwsCoded(() => kr.mask(V7, { mode: 'u63' }), RangeError, 'IDFORGE_INVALID_ARGUMENT', /takes an integer/);
  throwsCoded(() => kr.mask(V4, { mode: 'v7' }), RangeError, 'IDFORGE_INVALID_ARGUMENT', /is not a UUIDv7/);
  throwsCoded(() => kr.unmask(V7, { mode: 'v7' }), RangeError, 'IDFORGE_INVALID_ARGUMENT', /is not a UUIDv4/);
  throwsCoded(() => kr.unmask(kr.mask(5n), { mode: 'v7' }), RangeError, 'IDFORGE_INVALID_ARGUMENT',
              /is of mode u63, not v7/);
  throwsCoded(() => kr.unmask(kr.mask(5n), { keyId: 3 }), Error, 'IDFORGE_KEY_ERROR', /made with mask key 1, not 3/);
  throwsCoded(() => kr.mask('not-a-uuid'), RangeError, 'IDFORGE_PARSE_ERROR', /neither decimal digits/);
  assert.equal(kr.unmask(kr.mask(5n), { mode: 'u63', keyId: 1 }), 5n);
});

test('bad options and wrong types', () => {
  throwsCoded(() => kr.mask(5n, { mode: 'u64' }), RangeError, 'IDFORGE_INVALID_ARGUMENT', /mode 'u64'/);
  throwsCoded(() => kr.mask(5n, { form: 'short' }), RangeError, 'IDFORGE_INVALID_ARGUMENT', /form 'short'/);
  throwsCoded(() => kr.mask(5n, { alphabet: 'base64' }), RangeError, 'IDFORGE_INVALID_ARGUMENT', /alphabet/);
  throwsCoded(() => kr.mask(5n, { keyId: -1 }), RangeError, 'IDFORGE_INVALID_ARGUMENT', /keyId -1/);
  throwsCoded(() => kr.mask(5n, { keyId: 1.5 }), RangeError, 'IDFORGE_INVALID_ARGUMENT', /keyId 1.5/);
  throwsCoded(() => kr.mask(5n, { keyId: 9 }), Error, 'IDFORGE_KEY_ERROR', /mask key 9 is not in the keyring/);
  for (const call of [() => kr.mask(Buffer.from('5')), () => kr.mask(true), () => kr.mask(null),
    () => kr.mask(), () => kr.mask(5n, 'raw'), () => kr.mask(5n, { mode: 1 }), () => kr.mask(5n, { keyId: '1' }),
    () => kr.unmask({}), () => kr.readPublicId(5), () => MaskKeyring.fromText(Buffer.from(`1:${COUNTING}`)),
    () => MaskKeyring.fromFile(5), () => new MaskKeyring(), () => idforge.newMaskKey('1')]) {
    assert.throws(call, TypeError);
  }
  throwsCoded(() => MaskKeyring.fromFile('/tmp/x\0y'), TypeError, 'IDFORGE_INVALID_ARGUMENT', /NUL/);
  throwsCoded(() => kr.mask(5n, { keyId: '1' }), TypeError, 'IDFORGE_INVALID_ARGUMENT', /keyId must be a number/);
  // A misspelt option used to be ignored: a raw unmask then read the value with the primary key.
  for (const opts of [{ key_id: 1 }, { keyid: 1 }, { keyID: 1 }, { Form: 'raw' }, { alphabt: 'base62' }]) {
    const name = Object.keys(opts)[0];
    throwsCoded(() => kr.unmask(6360351038900542679n, { form: 'raw', ...opts }), TypeError,
                'IDFORGE_INVALID_ARGUMENT', new RegExp(`unknown option '${name}'`));
  }
  throwsCoded(() => kr.readPublicId('MddbJ9eWq3n1mGH2', { form: 'raw' }), TypeError,
              'IDFORGE_INVALID_ARGUMENT', /unknown option 'form'/);
  assert.throws(() => kr.mask(5n, { get mode() { throw new Error('from getter'); } }), /from getter/);
});

test('bad keyrings are IDFORGE_KEY_ERROR and never show a secret', () => {
  const cases = [
    [`1:${COUNTING.slice(0, -2)}`, /entry 1 \(key ID '1'\): the secret has 62 characters/],
    [`1:${COUNTING.slice(0, -1)}g`, /not a hex digit at position 63/],
    [`1:${COUNTING},1:${DESCENDING}`, /given twice/],
    [`58:${COUNTING}`, /from 0 to 57/],
    [`4:${'0'.repeat(64)}`, /all zero bytes/],
    ['', /no key in it/],
    // Written the wrong way round: the "key ID" is the secret, and is not shown.
    [`${COUNTING}:1`, /a key ID of 64 bytes, not shown/],
  ];
  for (const [text, pattern] of cases) {
    assert.throws(() => MaskKeyring.fromText(text), (e) => {
      assert.equal(e.code, 'IDFORGE_KEY_ERROR');
      assert.match(e.message, pattern);
      assert.ok(!e.message.includes(COUNTING.slice(0, 40)) && !e.message.includes(DESCENDING.slice(0, 40)));
      return true;
    });
  }
});

test('fromFile and fromEnvironment', (t) => {
  const dir = leaseDir(t);
  const keys = path.join(dir, 'mask.keys');
  fs.writeFileSync(keys, `# test\n1:${COUNTING}\n`);
  assert.equal(MaskKeyring.fromFile(keys).mask(4001n), 'MddbJ9eWq3n1mGH2');
  // A path that is not UTF-8, as bytes.
  const odd = Buffer.concat([Buffer.from(`${dir}/keys-`), Buffer.from([0xff])]);
  fs.writeFileSync(odd, `1:${COUNTING}\n`);
  assert.equal(MaskKeyring.fromFile(odd).mask(4001n), 'MddbJ9eWq3n1mGH2');
  throwsCoded(() => MaskKeyring.fromFile(path.join(dir, 'nope.keys')), Error, 'IDFORGE_KEY_ERROR',
              /nope.keys' cannot be read/);
  const saved = { file: process.env.IDFORGE_MASK_KEY_FILE, keys: process.env.IDFORGE_MASK_KEYS };
  t.after(() => {
    for (const [k, v] of [['IDFORGE_MASK_KEY_FILE', saved.file], ['IDFORGE_MASK_KEYS', saved.keys]]) {
      if (v === undefined) delete process.env[k]; else process.env[k] = v;
    }
  });
  delete process.env.IDFORGE_MASK_KEY_FILE;
  delete process.env.IDFORGE_MASK_KEYS;
  throwsCoded(() => MaskKeyring.fromEnvironment(), Error, 'IDFORGE_KEY_ERROR', /no mask key: set IDFORGE_MASK_KEYS/);
  process.env.IDFORGE_MASK_KEYS = `1:${DESCENDING}`;
  assert.notEqual(MaskKeyring.fromEnvironment().mask(4001n), 'MddbJ9eWq3n1mGH2');
  process.env.IDFORGE_MASK_KEY_FILE = keys;  // a file wins over the entries
  assert.equal(MaskKeyring.fromEnvironment().mask(4001n), 'MddbJ9eWq3n1mGH2');
});

test('newMaskKey', () => {
  const a = idforge.newMaskKey(7);
  assert.match(a, /^7:[0-9a-f]{64}$/);
  assert.notEqual(a, idforge.newMaskKey(7));
  assert.deepEqual(MaskKeyring.fromText(a).keyIds, [7]);
  throwsCoded(() => idforge.newMaskKey(58), RangeError, 'IDFORGE_INVALID_ARGUMENT', /0\.\.57/);
});

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { MaskKeyring } = require(workerData.pkg);
const kr = MaskKeyring.fromFile(workerData.keys);
const ids = [];
for (let n = 1n; n <= 2000n; n++) ids.push(kr.mask(n));
const back = workerData.fromMain.map((id) => String(kr.unmask(id)));
parentPort.postMessage({ ids, back });
`;

test('four workers, each with its own keyring from one file, agree with the main thread', async (t) => {
  const dir = leaseDir(t);
  const keys = path.join(dir, 'mask.keys');
  fs.writeFileSync(keys, `2:${DESCENDING}\n1:${COUNTING}\n`);
  const main = MaskKeyring.fromFile(keys);
  const expected = [];
  for (let n = 1n; n <= 2000n; n++) expected.push(main.mask(n));
  const pkg = path.join(__dirname, '..');
  const results = await Promise.all([0, 1, 2, 3].map(() => new Promise((resolve, reject) => {
    const w = new Worker(WORKER, { eval: true, workerData: { pkg, keys, fromMain: expected }, env: process.env });
    w.once('message', resolve);
    w.once('error', reject);
  })));
  for (const r of results) {
    assert.deepEqual(r.ids, expected);
    assert.deepEqual(r.back, expected.map((_, i) => String(i + 1)));
  }
});
