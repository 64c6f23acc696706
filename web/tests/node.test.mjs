// The JavaScript API in Node, on the arrays and groups committed under
// tests/data: every recorded query answers as TileDB-Py did, schemas,
// fragments and metadata read as the native reader reads them (its JSON,
// written by tests/web/native_dump), damaged arrays fail with the native
// reader's message. Run by scripts/web_test.sh: node --test web/tests/
//   TILEFMT_WEB_DIST   the built module and API (scripts/wasm.sh's dist/)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { parseRecords, runRecords } from './recorded.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const DATA = path.resolve(HERE, '../../tests/data');
const DIST = process.env.TILEFMT_WEB_DIST || path.resolve(HERE, '../../build/wasm/dist');
const tilefmt = await import(path.join(DIST, 'tilefmt.mjs'));

function keys() {
  const out = new Map();
  for (const group of ['tiledb', 'time_travel']) {
    const m = JSON.parse(fs.readFileSync(path.join(DATA, group, 'manifest.json'), 'utf8'));
    for (const a of m.arrays) if (a.encryption && a.encryption.key) out.set(`${group}/${a.path}`, a.encryption.key);
  }
  return out;
}

for (const file of ['dense.txt', 'sparse.txt']) {
  test(`recorded queries: ${file}`, async () => {
    const records = parseRecords(fs.readFileSync(path.join(DATA, 'queries', file), 'utf8'));
    const k = keys();
    const { passed, failed } = await runRecords(records, (p, key) => tilefmt.open(path.join(DATA, p), { key }), (p) => k.get(p));
    assert.deepEqual(failed.slice(0, 10), [], `${failed.length} of ${records.length} failed`);
    assert.equal(passed, records.length);
  });
}

test('docs/browser.md: its JavaScript blocks run', async () => {
  const page = fs.readFileSync(path.resolve(HERE, '../../docs/browser.md'), 'utf8');
  // Blocks marked `js no-run` need what a test has not (a bucket of the
  // reader's): they are compiled, not run.
  const all = [...page.matchAll(/```js( no-run)?\n([\s\S]*?)```/g)];
  const blocks = all.filter((m) => !m[1]).map((m) => m[2]);
  assert.ok(blocks.length > 0);
  const AsyncFunction = (async () => {}).constructor;
  for (const m of all.filter((x) => x[1])) new AsyncFunction('open', 'accessKeyId', 'secretAccessKey', 'sessionToken', m[2]);
  const groupUrl = path.join(DATA, 'groups', 'experiment');
  const lines = [];
  const log = { log: (...x) => lines.push(x.join(' ')) };
  for (const code of blocks) {
    const body = code.replace(/^import .*$/gm, '');
    await new AsyncFunction('open', 'openFiles', 'url', 'groupUrl', 'console', body)(
      tilefmt.open, tilefmt.openFiles, path.join(groupUrl, 'image'), groupUrl, log);
  }
  assert.ok(lines.some((l) => l.includes('ArraySchema')), lines.join('\n'));
  assert.ok(lines.some((l) => l.startsWith('image array')), lines.join('\n'));
});

test('a damaged array: the typed error, naming the file and the byte offset', async () => {
  const dir = fs.mkdtempSync(path.join((await import('node:os')).tmpdir(), 'tilefmt-web-'));
  try {
    fs.cpSync(path.join(DATA, 'tiledb', 'dense_1d_int32', 'array'), path.join(dir, 'array'), { recursive: true });
    const frags = fs.readdirSync(path.join(dir, 'array', '__fragments')).sort();
    const meta = path.join(dir, 'array', '__fragments', frags[0], '__fragment_metadata.tdb');
    const bytes = fs.readFileSync(meta);
    fs.writeFileSync(meta, bytes.subarray(0, bytes.length - 20));
    await assert.rejects(async () => (await tilefmt.open(path.join(dir, 'array'))).query({}), (e) => {
      assert.equal(e.name, 'tilefmt.FormatError');
      assert.match(e.message, /__fragment_metadata\.tdb/);
      assert.match(e.message, /byte|offset/);
      return true;
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('an encrypted array is refused, saying why', async () => {
  await assert.rejects(tilefmt.open(path.join(DATA, 'tiledb', 'encrypted_dense', 'array'), { key: '0123456789abcdeF0123456789abcdeF' }),
    /AES-256-GCM is not available in this build/);
});

test('batches: recorded queries read in small parts, put together, are the whole result', async () => {
  const records = parseRecords(fs.readFileSync(path.join(DATA, 'queries', 'sparse.txt'), 'utf8'))
    .filter((q) => !q.error && q.order !== 'A' && q.order !== 'U' && !q.path.includes('encrypted'));
  let checked = 0, split = 0;
  for (const q of records.slice(0, 120)) {
    const a = await tilefmt.open(path.join(DATA, q.path));
    const { apiQuery } = await import('./recorded.mjs');
    const spec = apiQuery(q, await a.schema());
    const whole = await a.query(spec);
    const parts = [];
    for await (const part of a.batches(spec, 512)) parts.push(part);
    if (parts.length > 1) ++split;
    assert.equal(parts.reduce((n, p) => n + p.cells, 0), whole.cells, q.path);
    for (const name of whole.names) {
      const joined = parts.flatMap((p) => Array.from(p.fields[name].values, String));
      assert.deepEqual(joined, Array.from(whole.fields[name].values, String), `${q.path} ${name}`);
    }
    await a.close();
    ++checked;
  }
  assert.ok(checked >= 100 && split >= 20, `${checked} checked, ${split} in several parts`);
});
