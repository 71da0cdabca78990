'use strict';
// Shared by the tests: the package under test, a scratch lease folder, the idforge CLI.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

// A fixed node without a lease store is registered in the folder IDFORGE_LEASE_DIR names
// (else .data/leases under the working directory): each test process gets a fresh one, so
// files that run at once, or a run before, never hold each other's nodes or marks. Workers
// and child processes inherit it.
const processLeaseDir = fs.mkdtempSync(path.join(os.tmpdir(), 'idforge-node-fixed-'));
process.env.IDFORGE_LEASE_DIR = processLeaseDir;
process.on('exit', () => fs.rmSync(processLeaseDir, { recursive: true, force: true }));

const idforge = require('..');

function leaseDir(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'idforge-node-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function cli(...args) {
  const bin = process.env.IDFORGE_CLI;
  if (!bin) throw new Error('IDFORGE_CLI is not set (ctest sets it to the built idforge)');
  return spawnSync(bin, args, { encoding: 'utf8', timeout: 30000 });
}

module.exports = { idforge, leaseDir, cli };
