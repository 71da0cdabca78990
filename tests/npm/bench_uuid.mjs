// Times the npm generators beside which idforge's UUID benchmarks are read: uuid (v4, v7,
// stringify, parse), ulid (ulid(), monotonicFactory), typeid-js and ksuid. It lives beside
// tests/npm/package.json because that is where the pinned packages are installed.
//
//   node bench_uuid.mjs                   one JSON object: {"rows": [{"name", "ns"}...]}
//   node bench_uuid.mjs --table GB.json   also reads Google Benchmark JSON output of
//                                         idforge_bench_uuid and prints one Markdown table
//                                         with the ratios and the spec's targets
// scripts/bench_uuid.sh runs the C++ benchmark and this script in one go.
import { readFileSync } from 'node:fs';
import * as uuid from 'uuid';
import * as ulid from 'ulid';
import { typeid } from 'typeid-js';
import KSUID from 'ksuid';

// CPU time (user + system, as process.cpuUsage reports it) per call: the machine is shared,
// so wall time would count other processes' turns; the C++ side reports cpu_time likewise.
// A warm-up lets V8 optimise and sizes one run to about 100 ms; the median of `reps` runs.
function cpuNs() {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1000;
}
function time(fn, reps = 5) {
  let sink = 0;
  let n = 1000;
  for (;;) {
    const t0 = cpuNs();
    for (let i = 0; i < n; i++) sink ^= fn().length | 0;
    const dt = cpuNs() - t0;
    if (dt >= 50e6 || n >= 1 << 24) {
      n = Math.max(100, Math.round((n * 100e6) / Math.max(dt, 1)));
      break;
    }
    n *= 4;
  }
  const runs = [];
  for (let r = 0; r < reps; r++) {
    const t0 = cpuNs();
    for (let i = 0; i < n; i++) sink ^= fn().length | 0;
    runs.push((cpuNs() - t0) / n);
  }
  if (sink === 0.5) console.log('');  // keeps the results alive
  runs.sort((a, b) => a - b);
  return runs[Math.floor(reps / 2)];
}

function npmRows() {
  const texts = Array.from({ length: 1024 }, (_, i) => (i % 2 ? uuid.v7() : uuid.v4()));
  const bytes = texts.map((t) => uuid.parse(t));
  let i = 0;
  const monotonic = ulid.monotonicFactory();
  return [
    { name: 'npm uuid v4()', ns: time(() => uuid.v4()) },
    { name: 'npm uuid v7()', ns: time(() => uuid.v7()) },
    { name: 'npm ulid ulid()', ns: time(() => ulid.ulid()) },
    { name: 'npm ulid monotonicFactory()()', ns: time(() => monotonic()) },
    { name: 'npm typeid-js typeid("user")', ns: time(() => typeid('user').toString()) },
    { name: 'npm ksuid randomSync()', ns: time(() => KSUID.randomSync().string) },
    { name: 'npm uuid stringify()', ns: time(() => uuid.stringify(bytes[i++ & 1023])) },
    { name: 'npm uuid parse()', ns: time(() => uuid.parse(texts[i++ & 1023])) },
  ];
}

// Google Benchmark JSON: the median aggregate when repetitions ran, else the single run; CPU
// time, like the npm rows. Batch rows carry ns_per_id (an inverted rate of IDs per CPU ns).
function gbenchRows(path) {
  const j = JSON.parse(readFileSync(path, 'utf8'));
  const rows = new Map();
  const scale = { ns: 1, us: 1e3, ms: 1e6, s: 1e9 };
  const field = 'cpu_time';
  for (const b of j.benchmarks) {
    const median = b.aggregate_name === 'median';
    if (b.run_type === 'aggregate' && !median) continue;
    const name = b.run_name ?? b.name;
    if (rows.has(name) && !median) continue;
    const ns = b.ns_per_id !== undefined ? b.ns_per_id : b[field] * scale[b.time_unit];
    rows.set(name, ns);
  }
  return { rows, context: j.context };
}

function table(gbPath) {
  const { rows: g, context } = gbenchRows(gbPath);
  const npm = new Map(npmRows().map((r) => [r.name, r.ns]));
  const get = (name) => {
    const v = g.get(name) ?? npm.get(name);
    if (v === undefined) throw new Error(`no row ${name}`);
    return v;
  };
  const f = (ns) => (ns >= 100 ? ns.toFixed(0) : ns >= 10 ? ns.toFixed(1) : ns.toFixed(2));
  const out = [];
  out.push(`Run: ${context.date}, ${context.num_cpus} CPUs at ${context.mhz_per_cpu} MHz, node ${process.version}`);
  out.push('');
  out.push('| group | row | ns | idforge faster by |');
  out.push('|---|---|---|---|');
  const groups = [
    ['floor', null, [
      ['`clock_gettime(CLOCK_REALTIME)`', 'BM_Floor_ClockRead'],
      ['16 bytes of libsodium ChaCha20 keystream (4 KiB buffer)', 'BM_Floor_Keystream16'],
      ['clock read + 16 keystream bytes', 'BM_Floor_ClockReadPlusKeystream16'],
      ['`getrandom()` of 16 bytes', 'BM_Floor_Getrandom16'],
    ]],
    ['UUIDv4', 'BM_Idforge_UuidV4', [
      ['idforge `new_uuid_v4()`', 'BM_Idforge_UuidV4'],
      ['idforge `new_uuid_v4_batch`, per ID (256)', 'BM_Idforge_UuidV4Batch/256'],
      ['libuuid `uuid_generate_random`', 'BM_Libuuid_GenerateRandom', true],
      ['Boost 1.81 `random_generator`', 'BM_Boost181_RandomGenerator', true],
      ['Boost 1.81 `random_generator_mt19937` (not a CSPRNG)', 'BM_Boost181_RandomGeneratorMt19937', true],
      ['npm uuid `v4()`', 'npm uuid v4()', true],
    ]],
    ['UUIDv7', 'BM_Idforge_UuidV7', [
      ['idforge `UuidV7Generator::next()`', 'BM_Idforge_UuidV7'],
      ['idforge `SharedUuidV7Generator::next()`', 'BM_Idforge_UuidV7Shared'],
      ['idforge `next_batch`, per ID (256)', 'BM_Idforge_UuidV7Batch/256'],
      ['libuuid `uuid_generate_time` (v1)', 'BM_Libuuid_GenerateTime', true],
      ['npm uuid `v7()`', 'npm uuid v7()', true],
    ]],
    ['ULID', 'BM_Idforge_Ulid', [
      ['idforge `UlidGenerator::next()`', 'BM_Idforge_Ulid'],
      ['idforge `SharedUlidGenerator::next()`', 'BM_Idforge_UlidShared'],
      ['idforge `next_batch`, per ID (256)', 'BM_Idforge_UlidBatch/256'],
      ['npm ulid `ulid()`', 'npm ulid ulid()', true],
      ['npm ulid `monotonicFactory()()`', 'npm ulid monotonicFactory()()', true],
    ]],
    ['TypeID', 'BM_Idforge_TypeIdNext', [
      ['idforge `TypeIdGenerator::next()`', 'BM_Idforge_TypeIdNext'],
      ['npm typeid-js `typeid("user")`', 'npm typeid-js typeid("user")', true],
    ]],
    ['KSUID', 'BM_Idforge_KsuidNew', [
      ['idforge `new_ksuid()`', 'BM_Idforge_KsuidNew'],
      ['npm ksuid `randomSync()`', 'npm ksuid randomSync()', true],
    ]],
    ['UUID to string', 'BM_Idforge_UuidToChars', [
      ['idforge `Uuid::to_chars`', 'BM_Idforge_UuidToChars'],
      ['libuuid `uuid_unparse_lower`', 'BM_Libuuid_Unparse', true],
      ['Boost 1.81 `to_chars`', 'BM_Boost181_ToChars', true],
      ['npm uuid `stringify()`', 'npm uuid stringify()', true],
    ]],
    ['UUID parse', 'BM_Idforge_UuidParse', [
      ['idforge `parse_uuid`', 'BM_Idforge_UuidParse'],
      ['libuuid `uuid_parse`', 'BM_Libuuid_Parse', true],
      ['Boost 1.81 `string_generator`', 'BM_Boost181_StringGenerator', true],
      ['npm uuid `parse()`', 'npm uuid parse()', true],
    ]],
    ['text paths', null, [
      ['idforge `to_chars` of 256 UUIDs, one call, per ID', 'BM_Idforge_UuidToCharsBatch/256'],
      ['idforge `to_chars` of 256 ULIDs, one call, per ID', 'BM_Idforge_UlidToCharsBatch/256'],
      ...['UuidToChars', 'UuidToHex', 'UuidParse', 'UuidParseHex', 'UlidToChars', 'UlidParse'].flatMap((op) =>
        ['scalar', 'ssse3', 'avx2'].map((p) => [`idforge ${op}, ${p} path`, `BM_Idforge_Text_${op}_${p}`, false, true])),
    ]],
    ['other text', null, [
      ['idforge `Ulid::to_chars`', 'BM_Idforge_UlidToChars'],
      ['idforge `parse_ulid`', 'BM_Idforge_UlidParse'],
      ['idforge `TypeId::to_chars` ("user_")', 'BM_Idforge_TypeIdToChars'],
      ['idforge `parse_typeid` ("user_")', 'BM_Idforge_TypeIdParse'],
      ['idforge `Ksuid::to_chars`', 'BM_Idforge_KsuidToChars'],
      ['idforge `parse_ksuid`', 'BM_Idforge_KsuidParse'],
    ]],
  ];
  for (const [group, base, entries] of groups) {
    for (const [label, name, isPeer, optional] of entries) {
      if (optional && !g.has(name)) continue;  // a path this CPU does not have
      const ns = get(name);
      const ratio = isPeer && base ? `${(ns / get(base)).toFixed(1)}×` : '';
      out.push(`| ${group} | ${label} | ${f(ns)} | ${ratio} |`);
    }
  }
  const clock = get('BM_Floor_ClockRead');
  const ks = get('BM_Floor_Keystream16');
  const both = clock + ks;
  const target = (what, ns, limit) =>
    `- ${what}: ${f(ns)} ns, target ≤ ${f(limit)} ns: ${ns <= limit ? 'met' : 'MISSED'} (${(ns / limit).toFixed(2)} of the limit)`;
  out.push('');
  out.push(`Targets (floors from this run: clock ${f(clock)} ns + 16 keystream bytes ${f(ks)} ns = ${f(both)} ns):`);
  out.push(target('single v7', get('BM_Idforge_UuidV7'), 1.3 * both));
  out.push(target('single ULID', get('BM_Idforge_Ulid'), 1.3 * both));
  out.push(target('single v4', get('BM_Idforge_UuidV4'), 1.3 * ks + 2));
  out.push(target('batch v7 per ID', get('BM_Idforge_UuidV7Batch/256'), 10));
  out.push(target('batch ULID per ID', get('BM_Idforge_UlidBatch/256'), 10));
  out.push(target('UUID to-string', get('BM_Idforge_UuidToChars'), 5));
  out.push(target('UUID parse', get('BM_Idforge_UuidParse'), 5));
  out.push(target('ULID to-string', get('BM_Idforge_UlidToChars'), 5));
  out.push(target('ULID parse', get('BM_Idforge_UlidParse'), 5));
  console.log(out.join('\n'));
}

const at = process.argv.indexOf('--table');
if (at > 0) table(process.argv[at + 1]);
else console.log(JSON.stringify({ rows: npmRows() }));
