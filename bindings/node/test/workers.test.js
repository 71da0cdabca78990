'use strict';
// Worker threads: each loads the addon in its own environment; uuid7/ulid come from one
// process-wide generator each and a leased Snowflake per worker gets its own node ID, so
// nothing repeats across threads.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { Worker } = require('node:worker_threads');
const { leaseDir } = require('./helpers');

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const idforge = require(workerData.pkg);
const uuids = [], ulids = [], v4 = [];
for (let i = 0; i < 10000; i++) { uuids.push(idforge.uuid7()); ulids.push(idforge.ulid()); v4.push(idforge.uuid4()); }
const s = new idforge.Snowflake({ leaseStore: workerData.url });
const ids = Array.from(s.nextBatch(5000), String);
for (let i = 0; i < 1000; i++) ids.push(s.nextString());
parentPort.postMessage({ uuids, ulids, v4, ids, node: s.node });
// The lease is held until every worker has reported, so the four hold theirs at once.
parentPort.once('message', () => { s.close(); parentPort.close(); });
`;

test('four workers share no ID and each sees its own order', async (t) => {
  const url = `file:${leaseDir(t)}`;
  const pkg = path.join(__dirname, '..');
  const workers = [0, 1, 2, 3].map(
    () => new Worker(WORKER, { eval: true, workerData: { pkg, url }, env: process.env }));
  const results = await Promise.all(workers.map((w) => new Promise((resolve, reject) => {
    w.once('message', resolve);
    w.once('error', reject);
  })));
  await Promise.all(workers.map((w) => new Promise((resolve) => {
    w.once('exit', resolve);
    w.postMessage('close');
  })));
  for (const kind of ['uuids', 'ulids', 'v4', 'ids']) {
    const all = results.flatMap((r) => r[kind]);
    assert.equal(new Set(all).size, all.length, `${kind}: duplicates across workers`);
  }
  assert.equal(new Set(results.map((r) => r.node)).size, 4);
  for (const r of results) {
    for (let i = 1; i < r.uuids.length; i++) assert.ok(r.uuids[i] > r.uuids[i - 1]);
    for (let i = 1; i < r.ids.length; i++) assert.ok(BigInt(r.ids[i]) > BigInt(r.ids[i - 1]));
  }
});
