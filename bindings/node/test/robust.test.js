'use strict';
// What a caller can do wrong, or abruptly, must end in a thrown JavaScript error, never in
// a process abort: terminated workers, throwing option getters, wrong types on the raw
// addon, NUL bytes in strings.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { Worker } = require('node:worker_threads');
const { idforge } = require('./helpers');

const native = require(process.env.IDFORGE_NODE_ADDON || path.join(__dirname, '..', 'idforge.node'));
const pkg = path.join(__dirname, '..');

const SPIN = `
const { parentPort, workerData } = require('node:worker_threads');
const idforge = require(workerData.pkg);
const s = new idforge.Snowflake({ node: 1 });
parentPort.postMessage('ready');
for (;;) s.nextBatch(1000);
`;

test('terminating a worker inside nextBatch leaves the process alive', async () => {
  for (let i = 0; i < 5; i++) {
    const w = new Worker(SPIN, { eval: true, workerData: { pkg }, env: process.env });
    await new Promise((resolve, reject) => { w.once('message', resolve); w.once('error', reject); });
    await w.terminate();
  }
});

test('process.exit() while a worker is inside nextBatch exits with the given code', () => {
  const script = `
    const { Worker } = require('node:worker_threads');
    const w = new Worker(${JSON.stringify(SPIN)}, { eval: true, workerData: { pkg: ${JSON.stringify(pkg)} } });
    w.once('message', () => setTimeout(() => process.exit(3), 50));
  `;
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 30000, env: process.env });
  assert.equal(r.status, 3, r.stderr);
  assert.doesNotMatch(r.stderr, /FATAL/);
});

test('an options getter that throws is rethrown, not fatal', () => {
  assert.throws(() => new idforge.Snowflake({ node: 1, get layout() { throw new Error('from getter'); } }),
                /from getter/);
  assert.throws(() => new idforge.Snowflake({ get node() { throw new Error('node getter'); } }),
                /node getter/);
  const proxy = new Proxy({}, { get() { throw new Error('from proxy'); } });
  assert.throws(() => new idforge.Snowflake(proxy), /from proxy/);
  const r = spawnSync(process.execPath, ['-e', `
    const idforge = require(${JSON.stringify(pkg)});
    try { new idforge.Snowflake({ node: 1, get layout() { throw new Error('x'); } }); } catch (e) { process.exit(0); }
    process.exit(1);`], { encoding: 'utf8', timeout: 30000, env: process.env });
  assert.equal(r.status, 0, r.stderr);
});

test('the raw addon exports throw TypeError or RangeError on wrong arguments', () => {
  assert.throws(() => native.uuid4Block('x'), TypeError);
  assert.throws(() => native.uuid4Block(), TypeError);
  assert.throws(() => native.uuid4Block(2 ** 32 + 1), RangeError);
  assert.throws(() => native.uuid4Block(1.5), RangeError);
  assert.equal(native.uuid4Block(1).length, 36);
  assert.throws(() => native.inspectJson(), TypeError);
  assert.throws(() => native.inspectJson(5), TypeError);
  assert.throws(() => native.inspectJson('1', 5), TypeError);
  assert.throws(() => native.decompose(), TypeError);
  assert.throws(() => native.decompose('1'), TypeError);
  assert.throws(() => native.decompose(1), TypeError);
  assert.throws(() => native.decompose(1n, 5), TypeError);
  assert.throws(() => native.sfNew({ node: 1, layout: 5 }), TypeError);
});

test('a NUL byte in a layout or lease store is refused, naming the argument', () => {
  assert.throws(() => new idforge.Snowflake({ layout: 'twitter\0evil', node: 1 }),
                (e) => e instanceof TypeError && /layout/.test(e.message) && /NUL/.test(e.message));
  assert.throws(() => new idforge.Snowflake({ leaseStore: 'file:/tmp/x\0?nodes=1' }),
                (e) => e instanceof TypeError && /leaseStore/.test(e.message) && /NUL/.test(e.message));
  assert.throws(() => idforge.decompose(1n, 'twitter\0x'), (e) => e instanceof TypeError && /NUL/.test(e.message));
  assert.throws(() => idforge.inspect('1', 'twitter\0x'), (e) => e instanceof TypeError && /NUL/.test(e.message));
});

test('an inspect error keeps what follows a NUL in the input', () => {
  assert.throws(() => idforge.inspect('123\0garbage'), (e) => /garbage/.test(e.message));
});

test('argument errors carry code and status; every call on a closed Snowflake is IDFORGE_CLOSED', () => {
  const coded = (cls, code) => (e) => e instanceof cls && e.code === code && typeof e.status === 'string';
  assert.throws(() => new idforge.Snowflake({ node: -1 }), coded(RangeError, 'IDFORGE_NODE_OUT_OF_RANGE'));
  const s = new idforge.Snowflake({ node: 1 });
  assert.throws(() => s.nextBatch(-1), coded(RangeError, 'IDFORGE_INVALID_ARGUMENT'));
  assert.throws(() => idforge.decompose(-1n), coded(RangeError, 'IDFORGE_INVALID_ARGUMENT'));
  assert.throws(() => idforge.decompose(1n, 5), coded(TypeError, 'IDFORGE_INVALID_ARGUMENT'));
  assert.throws(() => idforge.inspect('123', 5), coded(TypeError, 'IDFORGE_INVALID_ARGUMENT'));
  assert.throws(() => idforge.decompose('abc'), (e) => coded(RangeError, 'IDFORGE_PARSE_ERROR')(e) && /abc/.test(e.message));
  assert.throws(() => new idforge.Snowflake({ layout: 'nope', node: 1 }), (e) => e instanceof RangeError && /nope/.test(e.message));
  s.close();
  for (const call of [() => s.next(), () => s.nextString(), () => s.nextBatch(1), () => s.release(),
                      () => s.node, () => s.layout]) {
    assert.throws(call, (e) => e.code === 'IDFORGE_CLOSED' && /closed/.test(e.message));
  }
});

test('a message echoes at most a bounded piece of a huge input', () => {
  const huge = '9'.repeat(1 << 20);
  assert.throws(() => idforge.decompose(`x${huge}`), (e) => e.message.length < 200);
  assert.throws(() => new idforge.Snowflake({ layout: `${huge}\0`, node: 1 }), (e) => e.message.length < 300);
});

test('IDFORGE_NODE_ADDON may be a path relative to the working directory', () => {
  const addon = path.resolve(process.env.IDFORGE_NODE_ADDON || path.join(pkg, 'idforge.node'));
  const cwd = path.dirname(path.dirname(addon));
  const r = spawnSync(process.execPath, ['-e', `console.log(require(${JSON.stringify(pkg)}).uuid7())`],
                      { encoding: 'utf8', timeout: 30000, cwd,
                        env: { ...process.env, IDFORGE_NODE_ADDON: path.relative(cwd, addon) } });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^[0-9a-f]{8}-/);
});

test('the raw masking exports refuse modes and alphabets index.js would never pass', () => {
  const h = native.mkFromText('1:000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f');
  assert.throws(() => native.mkMask(h, 5n, 99, false, 0, -1), RangeError);
  assert.throws(() => native.mkMask(h, 5n, -2, false, 0, -1), RangeError);
  assert.throws(() => native.mkUnmask(h, 5n, 0, false, 7, -1), RangeError);
  assert.throws(() => native.mkMask({}, 5n, 0, false, 0, -1), TypeError);
  assert.throws(() => native.mkMask(h, 5n), TypeError);
  assert.equal(native.mkMask(h, 4001n, 0, true, 0, -1), 8888165847862036857n);
});
