'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { idforge, leaseDir, cli } = require('./helpers');

test('a fixed node issues increasing bigints carrying the node', () => {
  const s = new idforge.Snowflake({ layout: 'twitter', node: 7 });
  assert.equal(s.node, 7);
  let prev = s.next();
  assert.equal(typeof prev, 'bigint');
  for (let i = 0; i < 5000; i++) {
    const cur = s.next();
    assert.ok(cur > prev);
    prev = cur;
  }
  assert.equal(idforge.decompose(prev).node, 7);
  const text = s.nextString();
  assert.match(text, /^[0-9]+$/);
  assert.ok(BigInt(text) > prev);
  assert.ok(s.layout.includes('time=41'));
  s.close();
});

test('nextBatch continues after next and is increasing', () => {
  const s = new idforge.Snowflake({ layout: 'discord', node: 1 });
  const first = s.next();
  const batch = s.nextBatch(10000);
  assert.ok(batch instanceof BigUint64Array);
  assert.equal(batch.length, 10000);
  assert.ok(batch[0] > first);
  for (let i = 1; i < batch.length; i++) assert.ok(batch[i] > batch[i - 1]);
  assert.ok(s.next() > batch[batch.length - 1]);
  assert.equal(s.nextBatch(0).length, 0);
  assert.throws(() => s.nextBatch(-1), RangeError);
  assert.throws(() => s.nextBatch(1.5), RangeError);
  assert.throws(() => s.nextBatch('3'), TypeError);
  s.close();
});

test('errors name the value and carry a code', () => {
  assert.throws(() => new idforge.Snowflake({ node: 1024 }),
                (e) => e instanceof RangeError && e.code === 'IDFORGE_NODE_OUT_OF_RANGE' &&
                       e.message.includes('1024') && e.message.includes('0..1023'));
  assert.throws(() => new idforge.Snowflake({ layout: 'no-such-preset', node: 1 }),
                (e) => e.code === 'IDFORGE_PARSE_ERROR' && e.message.includes('no-such-preset'));
  assert.throws(() => new idforge.Snowflake({ layout: 'twitter' }),
                (e) => e.code === 'IDFORGE_INVALID_ARGUMENT' && e.message.includes('lease store'));
  assert.throws(() => new idforge.Snowflake({ node: -1 }), RangeError);
  assert.throws(() => new idforge.Snowflake({ node: '3' }), TypeError);
  assert.throws(() => new idforge.Snowflake(), TypeError);
  for (const url of ['static:5', 'ordinal:api-3']) {
    assert.throws(() => new idforge.Snowflake({ leaseStore: url }),
                  (e) => e.code === 'IDFORGE_INVALID_ARGUMENT' && e.message.includes(url) &&
                         e.message.includes('locks nothing'));
  }
  assert.throws(() => new idforge.Snowflake({ leaseStore: 'redis://127.0.0.1:1?timeout=200' }),
                (e) => e.code === 'IDFORGE_STORE_UNREACHABLE' && e.message.includes('127.0.0.1:1'));
});

test('one node, one live generator, whatever the layout or store', (t) => {
  // Twitter spelled as its spec, and a layout with the node's bits in the same place, on
  // another store: 1,000 of 2,000 IDs (and 100,256 of 400,000 across worker_threads) were equal.
  const a = new idforge.Snowflake({ layout: 'twitter', node: 44 });
  for (const layout of ['time=41,dc=5,worker=5,seq=12,epoch=1288834974657',
                        'time=41,dc=0,worker=10,seq=12,epoch=1288834974657']) {
    assert.throws(() => new idforge.Snowflake({ layout, node: 44, leaseStore: `file:${leaseDir(t)}` }),
                  (e) => e.code === 'IDFORGE_LEASE_ERROR' &&
                         e.message.includes('node 44 is held by a live generator of this process'));
  }
  const last = a.next();
  a.close();
  // Reopened with the epoch 1 s later in another store: its IDs of now are twitter's of 1 s
  // ago, so it refuses as a clock behind (or, a second on, issues above), never below: the first
  // ID was below the last one before (773,000 of 2,226,000 repeated).
  const shifted = new idforge.Snowflake({ layout: 'time=41,dc=5,worker=5,seq=12,epoch=1288834975657',
                                          node: 44, leaseStore: `file:${leaseDir(t)}` });
  try {
    assert.ok(shifted.next() > last);
  } catch (e) {
    assert.equal(e.code, 'IDFORGE_CLOCK_MOVED_BACKWARDS', e.message);
  }
  shifted.close();
});

test('leased generators get distinct nodes, refuse a held one and give theirs back', (t) => {
  const dir = leaseDir(t);
  const url = `file:${dir}`;
  const a = new idforge.Snowflake({ leaseStore: url });
  const b = new idforge.Snowflake({ leaseStore: url });
  assert.notEqual(a.node, b.node);
  assert.throws(() => new idforge.Snowflake({ node: a.node, leaseStore: url }),
                (e) => e.code === 'IDFORGE_LEASE_ERROR' && e.message.includes(dir));
  const taken = a.node;
  a.close();
  assert.equal(a.closed, true);
  assert.throws(() => a.next(), /closed/);
  const again = new idforge.Snowflake({ node: taken, leaseStore: url });
  assert.equal(again.node, taken);
  again.close();
  b.release();
  assert.throws(() => b.next(), (e) => e.code === 'IDFORGE_LEASE_ERROR');
  b.close();
});

test('inspect equals the CLI and takes a bigint under a layout', () => {
  const s = new idforge.Snowflake({ layout: 'discord', node: 3 });
  const id = s.next();
  const got = idforge.inspect(id, 'discord');
  const done = cli('inspect', '--json', '--layout', 'discord', String(id));
  assert.equal(done.status, 0, done.stderr);
  assert.deepEqual(got, JSON.parse(done.stdout));
  const bad = cli('inspect', 'not-an-id');
  assert.equal(bad.status, 1);
  assert.throws(() => idforge.inspect('not-an-id'), (e) => bad.stderr.includes(e.message));
  // A number past 2^53 - 1 is another ID than the one it was read from: refused, not decoded.
  for (const n of [2 ** 60, Number(id), 2 ** 53, 1.5, NaN]) {
    assert.throws(() => idforge.inspect(n), (e) => e instanceof RangeError && e.code === 'IDFORGE_INVALID_ARGUMENT' &&
                                                   /not a safe integer/.test(e.message));
  }
  assert.equal(idforge.inspect(2 ** 53 - 1).canonical, '9007199254740991');
  // Control characters in an ID are shown escaped, as the CLI shows them.
  const ctl = cli('inspect', 'ab\x1b[31m\x07');
  assert.throws(() => idforge.inspect('ab\x1b[31m\x07'), (e) => !/[\x00-\x1f]/.test(e.message) &&
                e.message.includes("'ab\\x1b[31m\\x07'") && ctl.stderr.includes(e.message));
  assert.throws(() => new idforge.Snowflake({ node: 2 ** 53 }),
                (e) => e.code === 'IDFORGE_NODE_OUT_OF_RANGE' && /safe integer/.test(e.message));
});

test('a day-long tick refuses instead of blocking until the next day', (t) => {
  // Two IDs a day: a later call used to block the event loop until the next day. A folder of
  // its own: node 1's mark from another layout would (rightly) refuse this one.
  process.env.IDFORGE_LEASE_DIR = leaseDir(t);
  // Node 13: no other test of the process issues with it, so no earlier handle's time (under
  // any layout: the node's floor in the process) lies in today's tick.
  const gen = new idforge.Snowflake({ layout: 'time=58,node=4,seq=1,tick=86400000ms,epoch=2020-01-01', node: 13 });
  const issued = [];
  assert.throws(() => { for (let i = 0; i < 6; ++i) issued.push(gen.next()); },
                (e) => e.code === 'IDFORGE_COUNTER_EXHAUSTED' && e.message.includes('max_sequence_wait_ms = 1000'));
  assert.ok(issued.length >= 2);
  for (let i = 1; i < issued.length; ++i) assert.ok(issued[i - 1] < issued[i]);
  gen.close();
});
