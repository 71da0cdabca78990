'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { idforge } = require('./helpers');

const CANONICAL = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ULID = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;

test('uuid7 is canonical version 7 text, increasing', () => {
  let prev = idforge.uuid7();
  for (let i = 0; i < 20000; i++) {
    const cur = idforge.uuid7();
    assert.match(cur, CANONICAL);
    assert.equal(cur[14], '7');
    assert.ok(cur > prev, `${cur} after ${prev}`);
    prev = cur;
  }
});

test('uuid4 is canonical version 4 text, never repeated across blocks', () => {
  const seen = new Set();
  for (let i = 0; i < 1000; i++) {  // several 128-UUID blocks
    const u = idforge.uuid4();
    assert.match(u, CANONICAL);
    assert.equal(u[14], '4');
    seen.add(u);
  }
  assert.equal(seen.size, 1000);
});

test('ulid is Crockford base32, increasing', () => {
  let prev = idforge.ulid();
  for (let i = 0; i < 20000; i++) {
    const cur = idforge.ulid();
    assert.match(cur, ULID);
    assert.ok(cur > prev);
    prev = cur;
  }
});

test('inspect of a UUIDv7 gives its time and the warning', () => {
  const d = idforge.inspect('017f22e2-79b0-7cc3-98c4-dc0c0c07398f');
  assert.equal(d.kind, 'uuid');
  assert.equal(d.unix_ms, 1645557742000);
  assert.ok(d.warning.includes('secret'));
});

test('inspect of a malformed ID throws the parse error with its code', () => {
  assert.throws(() => idforge.inspect('not-an-id'),
                (e) => e.code === 'IDFORGE_PARSE_ERROR' && e.status === 'parse_error' &&
                       e.message.includes('not-an-id'));
  assert.throws(() => idforge.inspect({}), TypeError);
});
