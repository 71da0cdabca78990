'use strict';
// One live generator per fixed node in a process: two worker threads that each open
// new Snowflake({node: 1}) (no lease store) used to issue the same IDs (295,098 repeats in
// 852,928). The library registers a fixed node in the folder IDFORGE_LEASE_DIR names, so the
// second live handle is refused with an Error naming the holder, and a node opened again
// after a close continues above the last ID it issued.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { Worker } = require('node:worker_threads');
const { idforge, leaseDir } = require('./helpers');

const pkg = path.join(__dirname, '..');

// Opens node 1, says whether it could, issues when told to and closes when told to: the
// main thread holds both workers' handles open at once before either issues.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { Snowflake } = require(workerData.pkg);
let s;
try {
  s = new Snowflake({ node: 1 });
} catch (e) {
  parentPort.postMessage({ refused: { isError: e instanceof Error, name: e.name, code: e.code, message: e.message } });
}
if (s) {
  parentPort.postMessage({ opened: true });
  parentPort.on('message', (m) => {
    if (m === 'issue') {
      const ids = [];
      for (let i = 0; i < workerData.batches; i++) for (const id of s.nextBatch(4096)) ids.push(String(id));
      for (let i = 0; i < 1000; i++) ids.push(s.nextString());
      parentPort.postMessage({ ids });
    } else {
      s.close();
      parentPort.close();
    }
  });
}
`;

function next(w) {
  return new Promise((resolve, reject) => {
    w.once('message', resolve);
    w.once('error', reject);
  });
}

test('two workers each opening Snowflake({node: 1}) issue no duplicate; a refused one issues nothing', async (t) => {
  const dir = leaseDir(t);
  process.env.IDFORGE_LEASE_DIR = dir;  // the library reads it at each open
  const env = { ...process.env, IDFORGE_LEASE_DIR: dir };
  const workers = [0, 1].map(() => new Worker(WORKER, { eval: true, workerData: { pkg, batches: 50 }, env }));
  const exited = workers.map((w) => new Promise((resolve) => w.once('exit', resolve)));
  const opened = await Promise.all(workers.map(next));
  const issuing = workers.filter((_, i) => opened[i].opened);
  assert.ok(issuing.length >= 1, `neither worker could open node 1: ${JSON.stringify(opened)}`);
  for (const o of opened.filter((x) => x.refused)) {
    assert.ok(o.refused.isError, `refused with a ${typeof o.refused}, not an Error`);
    assert.match(o.refused.code, /^IDFORGE_/, o.refused.message);
    assert.match(o.refused.message, /node 1\b/, o.refused.message);
  }
  const results = await Promise.all(issuing.map((w) => { const p = next(w); w.postMessage('issue'); return p; }));
  for (const w of issuing) w.postMessage('close');
  await Promise.all(exited);
  const all = results.flatMap((r) => r.ids);
  assert.equal(all.length, issuing.length * (50 * 4096 + 1000));
  const dupes = all.length - new Set(all).size;
  assert.equal(dupes, 0, `${dupes} duplicate IDs across the two workers (${issuing.length} issued)`);
  for (const r of results) for (const id of r.ids) assert.equal(idforge.decompose(id).node, 1);
});

test('open, 20 IDs, close, 200 times on one fixed node: no ID twice, each run above the last', (t) => {
  const dir = leaseDir(t);
  process.env.IDFORGE_LEASE_DIR = dir;
  const seen = new Set();
  let last = 0n;
  let behind = 0;
  for (let round = 0; round < 200; round++) {
    const s = new idforge.Snowflake({ node: 1 });
    for (let i = 0; i < 20; i++) {
      const id = s.next();
      if (id <= last) behind++;
      last = id;
      seen.add(id);
    }
    s.close();
  }
  assert.equal(seen.size, 200 * 20, `${200 * 20 - seen.size} IDs repeated`);
  assert.equal(behind, 0, `${behind} IDs not above the one before (a reopen went back)`);
});

test('a second live handle on a fixed node in the same thread is refused, and the first keeps issuing', (t) => {
  process.env.IDFORGE_LEASE_DIR = leaseDir(t);
  const a = new idforge.Snowflake({ node: 2 });
  const before = a.next();
  let b;
  try {
    b = new idforge.Snowflake({ node: 2 });
  } catch (e) {
    assert.ok(e instanceof Error);
    assert.match(e.code, /^IDFORGE_/);
  }
  if (b) {
    // Not refused: then the two must not overlap.
    const ids = new Set([...a.nextBatch(5000), ...b.nextBatch(5000)].map(String));
    b.close();
    assert.equal(ids.size, 10000, 'two live handles on node 2 issued the same IDs');
  }
  assert.ok(a.next() > before);
  a.close();
  const again = new idforge.Snowflake({ node: 2 });
  assert.ok(again.next() > before);
  again.close();
});
