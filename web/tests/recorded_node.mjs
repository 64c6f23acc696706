// Every recorded query of tests/data/queries in Node, on the arrays at
// BASE/<path> (an http(s):// site with listing documents, or s3://bucket with
// {endpoint, credentials} in OPTIONS): prints {passed, failed, total}
// as JSON. Run by web/tests/test_browser.py against the servers it starts.
//   node recorded_node.mjs BASE [OPTIONS_JSON]      (TILEFMT_WEB_DIST: the module)
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { parseRecords, runRecords } from './recorded.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const DATA = path.resolve(HERE, '../../tests/data');
const DIST = process.env.TILEFMT_WEB_DIST || path.resolve(HERE, '../../build/wasm/dist');
const tilefmt = await import(path.join(DIST, 'tilefmt.mjs'));
const [base, optionsText] = process.argv.slice(2);
const options = JSON.parse(optionsText || '{}');

const keys = new Map();
for (const group of ['tiledb', 'time_travel']) {
  const m = JSON.parse(fs.readFileSync(path.join(DATA, group, 'manifest.json'), 'utf8'));
  for (const a of m.arrays) if (a.encryption && a.encryption.key) keys.set(`${group}/${a.path}`, a.encryption.key);
}
const out = { passed: 0, failed: [], total: 0 };
for (const file of ['dense.txt', 'sparse.txt']) {
  const records = parseRecords(fs.readFileSync(path.join(DATA, 'queries', file), 'utf8'));
  const r = await runRecords(records, (p, key) => tilefmt.open(`${base}/${p}`, { ...options, key }), (p) => keys.get(p));
  out.passed += r.passed;
  out.total += records.length;
  out.failed.push(...r.failed);
}
console.log(JSON.stringify(out));
