'use strict';
// Handles carry type tags: every raw export that takes a handle, given one of another kind
// (a keyring to sfClose, a Snowflake to mkMask), a plain object, a number or undefined,
// throws a TypeError naming the function and what it expected, and leaves both handles
// working. It runs in a child process so that a crash (the SIGSEGV an untagged External gave)
// fails the test instead of killing the runner.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
require('./helpers');  // IDFORGE_LEASE_DIR for the child's fixed node

const addon = path.resolve(process.env.IDFORGE_NODE_ADDON || path.join(__dirname, '..', 'idforge.node'));

const CHILD = `
const native = require(${JSON.stringify(addon)});
const sf = native.sfNew({ node: 3 });
const closed = native.sfNew({ node: 4 });
native.sfClose(closed);
const kr = native.mkFromText('1:000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f');
// Each raw export with its arguments after the handle.
const takesSnowflake = {
  sfNext: [], sfNextString: [], sfNextBatch: [2], sfRelease: [], sfClose: [], sfClosed: [],
  sfNode: [], sfLayout: [],
};
const takesKeyring = {
  mkKeyIds: [], mkMask: [4001n, 0, true, 0, -1], mkUnmask: [4001n, 0, true, 0, -1],
  mkReadPublic: ['MddbJ9eWq3n1mGH2', -1, 0, -1],
};
const others = {
  snowflake: sf, keyring: kr, object: {}, number: 5, undefined, null: null, string: 's',
  bigint: 1n, function: () => {}, array: [sf], proxy: new Proxy({}, {}),
  taggedLookalike: Object.assign(Object.create(null), { handle: 1 }),
};
const results = [];
function attempt(fn, handle, args, expected, given) {
  try {
    native[fn](handle, ...args);
    results.push({ fn, given, expected, threw: false });
  } catch (e) {
    results.push({ fn, given, expected, threw: true, type: e.constructor.name, code: e.code,
                   message: e.message });
  }
}
for (const [fn, args] of Object.entries(takesSnowflake)) {
  for (const [given, h] of Object.entries(others)) if (given !== 'snowflake') attempt(fn, h, args, 'snowflake', given);
}
for (const [fn, args] of Object.entries(takesKeyring)) {
  for (const [given, h] of Object.entries(others)) if (given !== 'keyring') attempt(fn, h, args, 'keyring', given);
}
// A call with no argument at all.
for (const fn of [...Object.keys(takesSnowflake), ...Object.keys(takesKeyring)]) {
  try { native[fn](); results.push({ fn, given: 'nothing', threw: false }); } catch (e) {
    results.push({ fn, given: 'nothing', threw: true, type: e.constructor.name, code: e.code, message: e.message });
  }
}
// Both handles still work after all that, and a closed one still says closed.
const after = {
  next: typeof native.sfNext(sf), node: native.sfNode(sf), closed: native.sfClosed(closed),
  keyIds: native.mkKeyIds(kr), masked: String(native.mkMask(kr, 4001n, 0, true, 0, -1)),
};
process.stdout.write(JSON.stringify({ results, after }));
`;

test('every raw export refuses every other kind of handle with a TypeError, and nothing crashes', () => {
  const r = spawnSync(process.execPath, ['-e', CHILD], { encoding: 'utf8', timeout: 60000, env: process.env });
  assert.equal(r.signal, null, `the child died of ${r.signal}: ${r.stderr}`);
  assert.equal(r.status, 0, r.stderr);
  const { results, after } = JSON.parse(r.stdout);
  assert.ok(results.length >= 12 * 11, `only ${results.length} calls made`);
  for (const c of results) {
    const what = `${c.fn}(${c.given})`;
    assert.ok(c.threw, `${what} did not throw`);
    assert.equal(c.type, 'TypeError', `${what}: ${c.type}: ${c.message}`);
    assert.equal(c.code, 'IDFORGE_INVALID_ARGUMENT', `${what}: ${c.message}`);
    const expected = c.fn.startsWith('sf') ? /expected a Snowflake handle/ : /expected a MaskKeyring handle/;
    assert.match(c.message, new RegExp(`^${c.fn}: `), what);
    assert.match(c.message, expected, what);
  }
  const named = (fn, given) => results.find((c) => c.fn === fn && c.given === given).message;
  assert.match(named('sfClose', 'keyring'), /not a MaskKeyring handle$/);
  assert.match(named('mkMask', 'snowflake'), /not a Snowflake handle$/);
  assert.match(named('sfNext', 'number'), /not a number$/);
  assert.match(named('sfNext', 'undefined'), /not undefined$/);
  assert.match(named('mkKeyIds', 'object'), /not an object$/);
  assert.deepEqual(after, { next: 'bigint', node: 3, closed: true, keyIds: [1], masked: '8888165847862036857' });
});

test('the package classes keep their handles private, so only the raw exports can mix them', () => {
  const { idforge } = require('./helpers');
  const kr = idforge.MaskKeyring.fromText('1:000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f');
  assert.deepEqual(Object.keys(kr), []);
  assert.throws(() => idforge.Snowflake.prototype.close.call(kr), TypeError);
});
