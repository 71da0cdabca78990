'use strict';
// Node: idforge beside npm uuid (v4, v7), crypto.randomUUID(), npm ulid and
// @sapphire/snowflake, in one run, one thread; and the cost of a masking call.
//
// usage: IDFORGE_NODE_ADDON=build/bindings/node/idforge.node node bindings/node/bench/bench.js
//
// Each row: the best of 5 timed loops, ns per call. The duplicate hunt makes 10^6 Snowflakes
// in one tight loop with each library into a BigUint64Array, then counts repeats.
const crypto = require('node:crypto');
const os = require('node:os');
const uuid = require('uuid');
const { ulid, monotonicFactory } = require('ulid');
const { TwitterSnowflake } = require('@sapphire/snowflake');
const idforge = require('..');

function nsPerCall(fn, n) {
  let best = Infinity;
  let sink = 0;
  for (let r = 0; r < 5; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) sink ^= fn() === undefined ? 1 : 0;
    const dt = Number(process.hrtime.bigint() - t0) / n;
    if (dt < best) best = dt;
  }
  if (sink === 42) console.log('');
  return best;
}

// Generates n IDs in a tight loop first (as an application would), counts repeats after.
function duplicates(generate, n) {
  const ids = new BigUint64Array(n);
  for (let i = 0; i < n; i++) ids[i] = generate();
  ids.sort();
  let dups = 0;
  for (let i = 1; i < n; i++) if (ids[i] === ids[i - 1]) dups++;
  return dups;
}

const N = 300000;
const sf = new idforge.Snowflake({ layout: 'twitter', node: 1 });
const wide = new idforge.Snowflake({ layout: 'time=41,dc=0,worker=4,seq=18', node: 2 });
const monotonic = monotonicFactory();
// The public test key of tests/core/mask_support.hpp (never use it for anything real).
const kr = idforge.MaskKeyring.fromText('1:000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f');
const RAW = { form: 'raw' };
const masked = kr.mask(4001n, RAW);
const pub = kr.mask(4001n);
const rows = [
  ['crypto.randomUUID()', nsPerCall(() => crypto.randomUUID(), N)],
  ['npm uuid v4()', nsPerCall(() => uuid.v4(), N)],
  ['idforge.uuid4()', nsPerCall(() => idforge.uuid4(), N)],
  ['npm uuid v7()', nsPerCall(() => uuid.v7(), N)],
  ['idforge.uuid7()', nsPerCall(() => idforge.uuid7(), N)],
  ['npm ulid ulid()', nsPerCall(() => ulid(), N)],
  ['npm ulid monotonicFactory()()', nsPerCall(() => monotonic(), N)],
  ['idforge.ulid()', nsPerCall(() => idforge.ulid(), N)],
  ['@sapphire/snowflake TwitterSnowflake.generate()', nsPerCall(() => TwitterSnowflake.generate(), N)],
  ['idforge Snowflake.next(), twitter', nsPerCall(() => sf.next(), N)],
  ['idforge Snowflake.next(), wide', nsPerCall(() => wide.next(), N)],
  ['idforge Snowflake.nextString(), wide', nsPerCall(() => wide.nextString(), N)],
  ['idforge Snowflake.nextBatch(1000) per ID, wide', nsPerCall(() => wide.nextBatch(1000), 3000) / 1000],
  ['idforge MaskKeyring.mask(n, {form: raw}), u63 bigint', nsPerCall(() => kr.mask(4001n, RAW), N)],
  ['idforge MaskKeyring.unmask(m), raw u63 bigint', nsPerCall(() => kr.unmask(masked), N)],
  ['idforge MaskKeyring.mask(n), u63 -> public string', nsPerCall(() => kr.mask(4001n), N)],
  ['idforge MaskKeyring.unmask(pub), public -> bigint', nsPerCall(() => kr.unmask(pub), N)],
];
const d = Object.fromEntries(rows);
const width = Math.max(...rows.map((r) => r[0].length));
console.log(`node ${process.version}, idforge ${idforge.version}, ${os.cpus()[0].model}`);
for (const [name, v] of rows) console.log(`${name.padEnd(width)}  ${v.toFixed(1).padStart(9)} ns`);
console.log();
const ratio = (a, b) => (d[a] / d[b]).toFixed(2);
console.log(`npm uuid v7 / idforge.uuid7                     = ${ratio('npm uuid v7()', 'idforge.uuid7()')}x`);
console.log(`crypto.randomUUID / idforge.uuid4               = ${ratio('crypto.randomUUID()', 'idforge.uuid4()')}x`);
console.log(`npm uuid v4 / idforge.uuid4                     = ${ratio('npm uuid v4()', 'idforge.uuid4()')}x`);
console.log(`npm ulid monotonic / idforge.ulid               = ${ratio('npm ulid monotonicFactory()()', 'idforge.ulid()')}x`);
console.log(`@sapphire/snowflake / idforge Snowflake twitter = ${ratio('@sapphire/snowflake TwitterSnowflake.generate()', 'idforge Snowflake.next(), twitter')}x`);
const M = 1000000;
const dupSapphire = duplicates(() => TwitterSnowflake.generate(), M);
const dupIdforge = duplicates(() => sf.next(), M);
console.log(`duplicates in ${M} IDs from one tight loop (twitter layout, 4096 per ms): ` +
            `@sapphire/snowflake ${dupSapphire}, idforge ${dupIdforge}`);
