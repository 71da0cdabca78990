// Cross-checks idforge's UUID, ULID, TypeID and KSUID against the npm packages uuid, ulid,
// typeid-js and ksuid (versions pinned in package.json):
//  1. what `idforge gen` makes, the packages accept, with the same version and time;
//  2. what the packages make, `idforge inspect --json` decodes to the same kind, version,
//     time and canonical text;
//  3. `idforge convert` agrees with the packages' own conversions;
//  4. `idforge mask` turns UUIDv7s (npm-made and idforge-made) into what npm uuid reads as
//     version 4 with the RFC 9562 variant, and `idforge unmask` gives back the exact v7.
// Usage: node crosscheck.mjs /path/to/idforge    (run by CTest through run_crosscheck.sh)
import { execFileSync } from 'node:child_process';
import * as uuid from 'uuid';
import * as ulid from 'ulid';
import { TypeID, typeid } from 'typeid-js';
import KSUID from 'ksuid';

const idforge = process.argv[2];
if (!idforge) {
  console.error('usage: node crosscheck.mjs IDFORGE_BINARY');
  process.exit(2);
}

let passed = 0;
let failed = 0;
function check(what, ok, detail = '') {
  if (ok) {
    passed++;
  } else {
    failed++;
    if (failed <= 30) console.log(`FAIL ${what}${detail ? ': ' + detail : ''}`);
  }
}
function section(name, fn) {
  const before = failed;
  try {
    fn();
  } catch (e) {
    check(`${name} threw`, false, e.message);
  }
  console.log(`${failed === before ? 'ok  ' : 'FAIL'} ${name}`);
}

function run(args) {
  return execFileSync(idforge, args, { encoding: 'utf8', maxBuffer: 64 << 20 });
}
function lines(args) {
  return run(args).split('\n').filter((l) => l.length > 0);
}
// Generates with idforge and records the wall-clock window around the call.
function gen(args) {
  const t0 = Date.now();
  const out = lines(['gen', ...args, '--format', 'json']).map((l) => JSON.parse(l));
  const t1 = Date.now();
  return { ids: out, t0, t1 };
}
// Inspects many IDs in one process; one JSON object per ID, in order.
function inspect(ids) {
  const out = [];
  for (let i = 0; i < ids.length; i += 500) {
    out.push(...lines(['inspect', '--json', ...ids.slice(i, i + 500)]).map((l) => JSON.parse(l)));
  }
  return out;
}
const hexOf = (uuidText) => uuidText.replace(/-/g, '').toLowerCase();
// npm's reading of a UUID's 48-bit millisecond field: through the ulid package's converter.
const npmUuidTime = (u) => ulid.decodeTime(ulid.uuidToULID(u));
function strictlyIncreasing(xs) {
  for (let i = 1; i < xs.length; i++) if (!(xs[i - 1] < xs[i])) return false;
  return true;
}

const N = 500;

// ---------------------------------------------------------------------------------------
// 1. idforge makes, the packages check

section('idforge uuid7 -> npm uuid validates version 7, ulid reads the same time', () => {
  const { ids, t0, t1 } = gen(['uuid7', '-n', String(N)]);
  check('count', ids.length === N, String(ids.length));
  for (const { id, hex, unix_ms } of ids) {
    check(`validate ${id}`, uuid.validate(id));
    check(`version ${id}`, uuid.version(id) === 7, String(uuid.version(id)));
    check(`round trip ${id}`, uuid.stringify(uuid.parse(id)) === id);
    check(`hex ${id}`, hexOf(id) === hex);
    const t = npmUuidTime(id);
    check(`time ${id}`, t === unix_ms, `${t} vs ${unix_ms}`);
    check(`time window ${id}`, t >= t0 && t <= t1, `${t} not in [${t0}, ${t1}]`);
  }
  check('uuid7 strictly increasing', strictlyIncreasing(ids.map((x) => x.id)));
});

section('idforge uuid4 -> npm uuid validates version 4', () => {
  const { ids } = gen(['uuid4', '-n', String(N)]);
  check('count', ids.length === N);
  for (const { id } of ids) {
    check(`validate ${id}`, uuid.validate(id));
    check(`version ${id}`, uuid.version(id) === 4, String(uuid.version(id)));
  }
  check('uuid4 distinct', new Set(ids.map((x) => x.id)).size === N);
});

section('idforge ulid -> npm ulid validates and reads the same time', () => {
  const { ids, t0, t1 } = gen(['ulid', '-n', String(N)]);
  check('count', ids.length === N);
  for (const { id, hex, unix_ms } of ids) {
    check(`isValid ${id}`, ulid.isValid(id));
    const t = ulid.decodeTime(id);
    check(`time ${id}`, t === unix_ms, `${t} vs ${unix_ms}`);
    check(`time window ${id}`, t >= t0 && t <= t1, `${t} not in [${t0}, ${t1}]`);
    check(`bytes ${id}`, hexOf(ulid.ulidToUUID(id)) === hex);
  }
  check('ulid strictly increasing', strictlyIncreasing(ids.map((x) => x.id)));
});

section('idforge typeid -> typeid-js parses prefix and UUIDv7, same time', () => {
  const { ids, t0, t1 } = gen(['typeid', '--prefix', 'user', '-n', String(N)]);
  check('count', ids.length === N);
  for (const { id, hex, unix_ms } of ids) {
    const t = TypeID.fromString(id, 'user');
    check(`type ${id}`, t.getType() === 'user');
    check(`to string ${id}`, t.toString() === id);
    const u = t.toUUID();
    check(`uuid ${id}`, hexOf(u) === hex);
    check(`version ${id}`, uuid.version(u) === 7);
    const ms = npmUuidTime(u);
    check(`time ${id}`, ms === unix_ms, `${ms} vs ${unix_ms}`);
    check(`time window ${id}`, ms >= t0 && ms <= t1);
  }
  check('typeid strictly increasing', strictlyIncreasing(ids.map((x) => x.id)));
  for (const { id } of gen(['typeid', '-n', '20']).ids) {
    check(`bare suffix ${id}`, TypeID.fromString(id).getType() === '' && id.length === 26);
  }
});

section('idforge ksuid -> npm ksuid parses the same bytes and time', () => {
  const { ids, t0, t1 } = gen(['ksuid', '-n', String(N)]);
  check('count', ids.length === N);
  for (const { id, hex, unix_ms } of ids) {
    const k = KSUID.parse(id);
    check(`string ${id}`, k.string === id);
    check(`raw ${id}`, k.raw.toString('hex') === hex);
    check(`time ${id}`, k.date.getTime() === unix_ms, `${k.date.getTime()} vs ${unix_ms}`);
    check(`time window ${id}`, unix_ms >= Math.floor(t0 / 1000) * 1000 && unix_ms <= t1);
  }
  check('ksuid distinct', new Set(ids.map((x) => x.id)).size === N);
});

// ---------------------------------------------------------------------------------------
// 2. the packages make, idforge inspects

// Times chosen to reach the edges of the fields: early, the seeds' era, now, the 48-bit end.
const TIMES = [1, 1000, 1_469_918_176_385, 1_688_096_058_518, Date.now(), 2 ** 47, 2 ** 48 - 1];

section('npm uuid v7 (set times and now) -> idforge inspect: version 7, same time', () => {
  const made = [];
  for (const ms of TIMES) made.push({ id: uuid.v7({ msecs: ms }), ms });
  for (let i = 0; i < N; i++) {
    const id = uuid.v7();
    made.push({ id, ms: npmUuidTime(id) });
  }
  const seen = inspect(made.map((m) => m.id));
  made.forEach(({ id, ms }, i) => {
    const j = seen[i];
    check(`kind ${id}`, j.kind === 'uuid', j.kind);
    check(`version ${id}`, j.version === 7, String(j.version));
    check(`time ${id}`, j.unix_ms === ms, `${j.unix_ms} vs ${ms}`);
    check(`canonical ${id}`, j.canonical === id);
  });
});

section('npm uuid v1 and v6 (set times) -> idforge inspect: same version and time', () => {
  const made = [];
  for (const ms of TIMES.slice(0, 5)) {
    made.push({ id: uuid.v1({ msecs: ms, nsecs: 0 }), ms, version: 1 });
    made.push({ id: uuid.v6({ msecs: ms, nsecs: 0 }), ms, version: 6 });
  }
  for (let i = 0; i < 50; i++) {
    const ms = Date.now();
    const v1 = uuid.v1({ msecs: ms, nsecs: 1234 });
    made.push({ id: v1, ms, version: 1 });
    made.push({ id: uuid.v1ToV6(v1), ms, version: 6 });
  }
  const seen = inspect(made.map((m) => m.id));
  made.forEach(({ id, ms, version }, i) => {
    const j = seen[i];
    check(`version ${id}`, j.version === version, String(j.version));
    check(`time ${id}`, j.unix_ms === ms, `${j.unix_ms} vs ${ms}`);
  });
});

section('npm uuid v4 -> idforge inspect: version 4, no time', () => {
  const made = Array.from({ length: N }, () => uuid.v4());
  const seen = inspect(made);
  made.forEach((id, i) => {
    check(`version ${id}`, seen[i].version === 4);
    check(`no time ${id}`, seen[i].unix_ms === undefined);
    check(`canonical ${id}`, seen[i].canonical === id);
  });
});

section('npm ulid (set times, monotonic factory) -> idforge inspect: same time', () => {
  const made = TIMES.map((ms) => ({ id: ulid.ulid(ms), ms }));
  const next = ulid.monotonicFactory();
  for (let i = 0; i < N; i++) {
    const id = next();
    made.push({ id, ms: ulid.decodeTime(id) });
  }
  const seen = inspect(made.map((m) => m.id));
  made.forEach(({ id, ms }, i) => {
    check(`kind ${id}`, seen[i].kind === 'ulid', seen[i].kind);
    check(`time ${id}`, seen[i].unix_ms === ms, `${seen[i].unix_ms} vs ${ms}`);
    check(`canonical ${id}`, seen[i].canonical === id);
  });
});

section('typeid-js (prefixes, set times) -> idforge inspect: same prefix, UUID and time', () => {
  const made = [];
  for (const prefix of ['user', 'a', 'pre_fix', 'x'.repeat(63)]) {
    for (let i = 0; i < 50; i++) made.push(typeid(prefix));
  }
  for (const ms of TIMES) made.push(TypeID.fromUUID('order', uuid.v7({ msecs: ms })));
  const seen = inspect(made.map((t) => t.toString()));
  made.forEach((t, i) => {
    const id = t.toString();
    const j = seen[i];
    check(`kind ${id}`, j.kind === 'typeid', j.kind);
    check(`prefix ${id}`, j.prefix === t.getType());
    check(`uuid ${id}`, j.uuid === t.toUUID());
    check(`version ${id}`, j.version === 7);
    check(`time ${id}`, j.unix_ms === npmUuidTime(t.toUUID()));
    check(`canonical ${id}`, j.canonical === id);
  });
  // An empty prefix leaves a bare suffix: the same 26 characters as a ULID of the same bits.
  const bare = typeid('');
  const j = inspect([bare.toString()])[0];
  check('bare typeid reads as a ULID', j.kind === 'ulid' && j.uuid === bare.toUUID(), JSON.stringify(j));
});

section('npm ksuid (set times, random, min, max) -> idforge inspect: same time and payload', () => {
  const made = [];
  const payload = Buffer.from('b5a1cd34b5f99d1154fb6853345c9735', 'hex');
  for (const s of [1_400_000_000, 1_507_608_047, Math.floor(Date.now() / 1000), 1_400_000_000 + 2 ** 32 - 1]) {
    made.push(KSUID.fromParts(s * 1000, payload));
  }
  for (let i = 0; i < N; i++) made.push(KSUID.randomSync());
  made.push(KSUID.parse(KSUID.MAX_STRING_ENCODED), KSUID.parse(KSUID.MIN_STRING_ENCODED));
  const seen = inspect(made.map((k) => k.string));
  made.forEach((k, i) => {
    const j = seen[i];
    check(`kind ${k.string}`, j.kind === 'ksuid', j.kind);
    check(`timestamp ${k.string}`, j.timestamp === k.timestamp, `${j.timestamp} vs ${k.timestamp}`);
    check(`time ${k.string}`, j.unix_ms === k.date.getTime(), `${j.unix_ms} vs ${k.date.getTime()}`);
    check(`payload ${k.string}`, j.payload === '0x' + k.payload.toString('hex'));
    check(`canonical ${k.string}`, j.canonical === k.string);
  });
});

// ---------------------------------------------------------------------------------------
// 3. convert agrees with the packages' conversions

section('idforge convert agrees with ulid.uuidToULID/ulidToUUID and TypeID.fromUUID', () => {
  const uuids = Array.from({ length: 200 }, (_, i) => (i % 2 ? uuid.v7() : uuid.v4()));
  const toUlid = lines(['convert', ...uuids, '--to', 'ulid']);
  const toTypeId = lines(['convert', ...uuids, '--to', 'typeid:user']);
  uuids.forEach((u, i) => {
    check(`ulid of ${u}`, toUlid[i] === ulid.uuidToULID(u), `${toUlid[i]} vs ${ulid.uuidToULID(u)}`);
    check(`typeid of ${u}`, toTypeId[i] === TypeID.fromUUID('user', u).toString());
  });
  const ulids = Array.from({ length: 200 }, () => ulid.ulid());
  const back = lines(['convert', ...ulids, '--to', 'uuid']);
  ulids.forEach((x, i) => check(`uuid of ${x}`, back[i] === ulid.ulidToUUID(x).toLowerCase()));
});

// ---------------------------------------------------------------------------------------
// 4. masking a v7 gives a UUID that npm's parser takes for a v4, and back

section('idforge mask (v7 as v4) -> npm uuid validates version 4, RFC variant; unmask gives the v7 back', () => {
  const key = run(['mask', '--new-key', '1']).trim();
  const env = { ...process.env, IDFORGE_MASK_KEYS: key, IDFORGE_MASK_KEY_FILE: '' };
  const withKey = (args) =>
    execFileSync(idforge, args, { encoding: 'utf8', env, maxBuffer: 64 << 20 }).split('\n').filter((l) => l.length > 0);
  const v7s = TIMES.map((ms) => uuid.v7({ msecs: ms }));
  for (let i = 0; i < N; i++) v7s.push(uuid.v7());
  v7s.push(...gen(['uuid7', '-n', '200']).ids.map((x) => x.id));
  const masked = withKey(['mask', '--form', 'raw', ...v7s]);
  check('count', masked.length === v7s.length, `${masked.length} vs ${v7s.length}`);
  masked.forEach((m, i) => {
    check(`validate ${m}`, uuid.validate(m));
    check(`version ${m}`, uuid.version(m) === 4, String(uuid.version(m)));
    check(`variant ${m}`, /^[89ab]$/.test(m[19]), m[19]);
    check(`round trip ${m}`, uuid.stringify(uuid.parse(m)) === m);
    check(`no time ${m}`, m.slice(0, 8) !== v7s[i].slice(0, 8));
  });
  const back = withKey(['unmask', ...masked]);
  back.forEach((b, i) => check(`unmask ${masked[i]}`, b === v7s[i], `${b} vs ${v7s[i]}`));
  check('distinct', new Set(masked).size === masked.length);
});

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
