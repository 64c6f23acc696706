// The recorded queries of tests/data/queries (what TileDB-Py returned,
// written by tests/interop/record_queries.py, whose docstring gives the
// format), run through tilefmt's JavaScript API and compared as
// tests/support/recorded_queries.hpp compares them natively. Shared by the
// Node test and the browser test page, so it imports nothing.

export function unhex(s) {
  if (s === '-') return new Uint8Array(0);
  const out = new Uint8Array(s.length / 2);
  for (let i = 0; i < out.length; ++i) out[i] = parseInt(s.substr(2 * i, 2), 16);
  return out;
}

const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

/// Python's float.hex() text ("0x1.8p+1", "-inf", "nan") as a number.
export function parseHexFloat(s) {
  const m = /^(-?)0x([0-9a-f]+)(?:\.([0-9a-f]*))?p([+-]\d+)$/i.exec(s);
  if (!m) {
    if (/^-?inf$/.test(s)) return s.startsWith('-') ? -Infinity : Infinity;
    if (s === 'nan') return NaN;
    throw new Error(`recorded queries: bad float ${s}`);
  }
  const frac = m[3] || '';
  const mantissa = parseInt(m[2] + frac, 16);
  const value = mantissa * 2 ** (Number(m[4]) - 4 * frac.length);
  return m[1] ? -value : value;
}

function parseBound(s) {
  if (s.startsWith('f')) return parseHexFloat(s.slice(1));
  if (s.startsWith('s')) return unhex(s.slice(1));
  return s;  // an integer, as decimal text
}

/// The records of one file's text.
export function parseRecords(text) {
  const out = [];
  let q = null;
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const w = line.split(' ');
    if (w[0] === 'query') {
      q = { path: w[1], order: w[2], ranges: [], where: [], aggregates: [], fields: [], error: false };
      if (w[3] && w[3] !== '-') {
        q.ranges = w[3].split(',').map((d) => d.split('|').map((r) => {
          // A bound may itself hold ':' only inside no encoding used here.
          const [lo, hi] = r.split(':');
          return [parseBound(lo), parseBound(hi)];
        }));
      }
      out.push(q);
    } else if (w[0] === 'where' || w[0] === 'label') {
      // The op may be two words ("not in").
      const op = w.length === 5 ? `${w[2]} ${w[3]}` : w[2];
      q.where.push({ field: w[1], op, value: w[w.length - 1], label: w[0] === 'label' });
    } else if (w[0] === 'agg') {
      q.aggregates.push({ field: w[1], op: w[2], value: w[3] });
    } else if (w[0] === 'dim' || w[0] === 'attr') {
      q.fields.push({
        name: w[1], dimension: w[0] === 'dim', cells: Number(w[2]), values: unhex(w[3]),
        offsets: w.length > 4 ? (w[4] === '-' ? [] : w[4].split(',').map(Number)) : null, validity: null,
      });
    } else if (w[0] === 'validity') {
      q.fields.find((f) => f.name === w[1]).validity = unhex(w[2]);
    } else if (w[0] === 'error') {
      q.error = true;
    }
  }
  return out;
}

/// A recorded condition value (bytes of the field's type) as the value a
/// user would give: a number or BigInt, a string label, or bytes.
function userValue(schemaField, w) {
  if (w.value === '-') return null;
  const bytes = unhex(w.value);
  if (w.label) return new TextDecoder().decode(bytes);
  const view = new DataView(bytes.buffer);
  switch (schemaField.type) {
    case 'INT8': return view.getInt8(0);
    case 'UINT8': case 'BOOL': return view.getUint8(0);
    case 'INT16': return view.getInt16(0, true);
    case 'UINT16': return view.getUint16(0, true);
    case 'INT32': return view.getInt32(0, true);
    case 'UINT32': return view.getUint32(0, true);
    case 'FLOAT32': return view.getFloat32(0, true);
    case 'FLOAT64': return view.getFloat64(0, true);
    case 'UINT64': return view.getBigUint64(0, true);
    default:
      if (bytes.length === 8 && /^(INT64|DATETIME_|TIME_)/.test(schemaField.type)) return view.getBigInt64(0, true);
      return bytes;
  }
}

function fieldTypes(schema) {
  const m = new Map();
  for (const d of schema.dimensions) m.set(d.name, d);
  for (const a of schema.attributes) m.set(a.name, a);
  return m;
}

/// The query object the API takes for record `q`.
export function apiQuery(q, schema) {
  const types = fieldTypes(schema);
  const spec = { layout: q.order === 'A' ? undefined : q.order };
  if (q.ranges.length) spec.ranges = q.ranges;
  if (q.order !== 'A') spec.attributes = q.fields.filter((f) => !f.dimension).map((f) => f.name);
  if (q.where.length) {
    const leaves = q.where.map((w) => {
      const v = userValue(types.get(w.field), w);
      return [w.field, w.op, v];
    });
    spec.where = leaves.length === 1 ? leaves[0] : { and: leaves };
  }
  return spec;
}

function cellBytes(f, c, cells, values, offsets) {
  if (!offsets) {
    const size = values.length / cells;
    return values.subarray(c * size, (c + 1) * size);
  }
  const end = c + 1 < offsets.length ? Number(offsets[c + 1]) : values.length;
  return values.subarray(Number(offsets[c]), end);
}

function rows(fields, cells, get) {
  const out = [];
  for (let c = 0; c < cells; ++c) {
    const row = [];
    for (const f of fields) {
      const g = get(f);
      row.push(hex(cellBytes(f, c, cells, g.values, g.offsets)));
      if (g.validity) row.push(String(g.validity[c]));
    }
    out.push(row);
  }
  return out;
}

/// How the API's answer differs from TileDB-Py's ('' when it does not).
export function compareCells(q, r) {
  let cells = 0;
  for (const f of q.fields) {
    if (!r.fields[f.name]) return `${f.name}: not returned`;
    if (r.cells !== f.cells) return `${f.name}: ${r.cells} cells, TileDB returned ${f.cells}`;
    cells = f.cells;
  }
  const dims = q.fields.filter((f) => f.dimension).length;
  const want = rows(q.fields, cells, (f) => f);
  const got = rows(q.fields, cells, (f) => {
    const x = r.fields[f.name];
    return { values: x.data, offsets: f.offsets ? x.offsets : null, validity: f.validity ? x.validity : null };
  });
  const key = (row) => row.join('|');
  const coords = (row) => row.slice(0, dims).join('|');
  if (q.order === 'U') {
    want.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
    got.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  } else if (dims > 0) {
    for (let c = 0; c < cells; ++c) if (coords(got[c]) !== coords(want[c])) return `cell ${c}: other coordinates`;
    // Cells that share coordinates (duplicates) may come in any order.
    for (let b = 0; b < cells;) {
      let e = b + 1;
      while (e < cells && coords(want[e]) === coords(want[b])) ++e;
      const sortPart = (a) => a.splice(b, e - b, ...a.slice(b, e).sort((x, y) => (key(x) < key(y) ? -1 : key(x) > key(y) ? 1 : 0)));
      sortPart(want);
      sortPart(got);
      b = e;
    }
  }
  let differ = 0, first = -1;
  for (let c = 0; c < cells; ++c) if (key(got[c]) !== key(want[c])) { ++differ; if (first < 0) first = c; }
  return differ ? `${differ} of ${cells} cells differ, first cell ${first}` : '';
}

/// The same for aggregates; a null aggregate of a float field is nan in TileDB-Py.
export function compareAggregates(q, got) {
  for (let i = 0; i < got.length; ++i) {
    const { field, op, value } = q.aggregates[i];
    const g = got[i];
    let same;
    if (value === 'null' || (value === 'nan' && g === null)) same = g === null;
    else if (typeof g === 'number') {
      const want = Number(value);
      if (value === 'nan') same = Number.isNaN(g);
      else if (op === 'sum' || op === 'mean') same = Math.abs(g - want) <= 1e-12 * Math.max(1, Math.abs(want));
      else same = g === want;
    } else if (typeof g === 'bigint') same = g.toString() === value;
    else same = false;
    if (!same) return `${op} of ${field}: ${g}, TileDB-Py ${value}`;
  }
  return '';
}

/// Runs every record of `records` on the arrays `open(path, key)` gives and
/// returns {passed, failed: [messages]}. `keyOf(path)` gives an encrypted
/// array's key: this build refuses those, and the refusal is checked.
export async function runRecords(records, open, keyOf) {
  const failed = [];
  let passed = 0;
  const arrays = new Map();
  for (const q of records) {
    const where = `${q.path} ${q.order} ${q.ranges.length ? 'ranges' : ''}`;
    try {
      const key = keyOf(q.path);
      if (key) {
        try {
          await open(q.path, key);
          failed.push(`${where}: an encrypted array opened`);
        } catch (e) {
          if (/AES-256-GCM is not available/.test(e.message)) ++passed;
          else failed.push(`${where}: ${e.message}`);
        }
        continue;
      }
      if (!arrays.has(q.path)) arrays.set(q.path, await open(q.path));
      const a = arrays.get(q.path);
      const spec = apiQuery(q, await a.schema());
      let why;
      if (q.error) {
        try {
          await a.query(spec);
          why = 'TileDB refused the query, tilefmt read it';
        } catch (e) {
          why = e.name === 'tilefmt.Error' ? '' : `refused with ${e.name}: ${e.message}`;
        }
      } else if (q.order === 'A') {
        spec.what = q.aggregates.map((x) => [x.op, x.field]);
        why = compareAggregates(q, await a.aggregate(spec));
      } else {
        why = compareCells(q, await a.query(spec));
      }
      if (why) failed.push(`${where}: ${why}`);
      else ++passed;
    } catch (e) {
      failed.push(`${where}: ${e.name}: ${e.message}`);
    }
  }
  for (const a of arrays.values()) await a.close();
  return { passed, failed };
}
