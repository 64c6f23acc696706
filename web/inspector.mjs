// The inspector page (index.html): opens an array or a group by URL
// (?url=... opens one at load) or from a picked folder, and shows its
// schema, fragments, metadata and members, runs queries, and draws a 2-D
// region of a numeric attribute as a heatmap. Static files only: it works
// from any host that serves files and byte ranges.
import { open, openFiles } from './tilefmt.mjs';

const $ = (id) => document.getElementById(id);
const state = { object: null, heatmap: null };

// Viridis, sampled at five points and interpolated linearly.
const VIRIDIS = [[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]];
/// The colour of t in [0, 1] as [r, g, b].
export function colour(t) {
  const x = Math.min(1, Math.max(0, Number.isFinite(t) ? t : 0)) * (VIRIDIS.length - 1);
  const i = Math.min(VIRIDIS.length - 2, Math.floor(x));
  const f = x - i;
  return VIRIDIS[i].map((c, k) => Math.round(c + (VIRIDIS[i + 1][k] - c) * f));
}

function status(text, error = false) {
  $('status').textContent = text;
  $('status').className = error ? 'error' : '';
}

function cellText(v) {
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'string') return JSON.stringify(v);
  return String(v);
}

function fillTable(table, header, rows) {
  const thead = table.querySelector('thead');
  if (header) thead.innerHTML = `<tr>${header.map((h) => `<th>${escape(h)}</th>`).join('')}</tr>`;
  table.querySelector('tbody').innerHTML = rows
    .map((r) => `<tr>${r.map((c) => `<td>${escape(c)}</td>`).join('')}</tr>`).join('');
}

function escape(s) {
  return String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
}

async function show(obj, label) {
  if (state.object && state.object !== obj && state.object.type === 'array') await state.object.close();
  state.object = obj;
  $('object').hidden = false;
  $('group-section').hidden = obj.type !== 'group';
  $('array-section').hidden = obj.type !== 'array';
  const meta = await obj.metadata();
  fillTable($('metadata'), null, Object.entries(meta).map(([k, v]) => [k, v.type, JSON.stringify(v.values)]));
  if (obj.type === 'group') {
    const members = await obj.members();
    $('members').innerHTML = members.map((m, i) =>
      `<li><a href="#" data-member="${i}">${escape(m.name ?? m.uri)}</a> <span class="kind">${escape(m.type)}</span> <code>${escape(m.uri)}</code></li>`).join('');
    for (const a of $('members').querySelectorAll('a')) {
      a.addEventListener('click', async (e) => {
        e.preventDefault();
        const m = members[Number(a.dataset.member)];
        try {
          status(`Opening ${m.name ?? m.uri} ...`);
          const group = obj;
          const member = await group.open(m.name ?? m.uri);
          await show(member, `${label} / ${m.name ?? m.uri}`);
          $('group-section').hidden = false;  // the tree stays in view
        } catch (err) {
          status(`${err.name}: ${err.message}`, true);
        }
      });
    }
    status(`${label}: a group of ${members.length} members`);
    return;
  }
  const schema = await obj.schema();
  $('schema').textContent = await obj.schemaText();
  const frags = await obj.fragments();
  fillTable($('fragments'), null, frags.map((f) => [f.name, f.timestamp_range.join(' - '), f.cell_num, f.sparse, JSON.stringify(f.nonempty_domain)]));
  const numeric = schema.attributes.filter((a) => a.cell_val_num === 1 && /^(U?INT|FLOAT|DATETIME|TIME_|BOOL)/.test(a.type));
  $('heat-attr').innerHTML = numeric.map((a) => `<option>${escape(a.name)}</option>`).join('');
  const ned = frags.length ? frags[0].nonempty_domain : [];
  if (schema.dimensions.length === 2 && ned.length === 2 && !$('heat-ranges').value) {
    // The first fragment's non-empty domain, at most 256 x 256 cells.
    $('heat-ranges').value = JSON.stringify(ned.map(([lo, hi]) => [lo, Math.min(hi, lo + 255)]));
  }
  status(`${label}: a ${schema.array_type.toLowerCase()} array, ${schema.dimensions.length} dimensions, ${schema.attributes.length} attributes, ${frags.length} fragments`);
}

async function runQuery(e) {
  e.preventDefault();
  const a = state.object;
  try {
    const q = { layout: $('layout').value };
    if ($('ranges').value.trim()) q.ranges = JSON.parse($('ranges').value);
    if ($('attributes').value.trim()) q.attributes = $('attributes').value.split(',').map((s) => s.trim()).filter(Boolean);
    if ($('where').value.trim()) q.where = JSON.parse($('where').value);
    const t0 = performance.now();
    const r = await a.query(q);
    const ms = performance.now() - t0;
    const shown = Math.min(r.cells, 1000);
    const rows = [];
    for (let c = 0; c < shown; ++c) {
      rows.push(r.names.map((n) => {
        const f = r.fields[n];
        if (f.validity && !f.validity[c]) return 'null';
        if (f.cellValNum > 1) return `[${Array.from(f.values.slice(c * f.cellValNum, (c + 1) * f.cellValNum), cellText).join(', ')}]`;
        return cellText(f.values[c]);
      }));
    }
    fillTable($('values'), r.names, rows);
    $('query-status').textContent = `${r.cells} cells in ${ms.toFixed(1)} ms${shown < r.cells ? ` (the first ${shown} shown)` : ''}`;
  } catch (err) {
    $('query-status').textContent = `${err.name}: ${err.message}`;
  }
}

/// Draws `attr` over a 2-D box as cells of k x k pixels, rows down.
async function drawHeatmap(e) {
  if (e) e.preventDefault();
  const a = state.object;
  const attr = $('heat-attr').value;
  try {
    const ranges = JSON.parse($('heat-ranges').value);
    const [[r0, r1], [c0, c1]] = ranges.map(([lo, hi]) => [Number(lo), Number(hi)]);
    const rows = r1 - r0 + 1, cols = c1 - c0 + 1;
    if (!(rows > 0 && cols > 0) || rows * cols > 4e6) throw new RangeError('a region of 1 to 4,000,000 cells');
    const schema = await a.schema();
    const dims = schema.dimensions.map((d) => d.name);
    const r = await a.query({ ranges: [[r0, r1], [c0, c1]], attributes: [attr], layout: 'C' });
    const grid = new Float64Array(rows * cols).fill(NaN);
    const values = r.fields[attr].values, validity = r.fields[attr].validity;
    const sparse = schema.array_type === 'SPARSE';
    for (let i = 0; i < r.cells; ++i) {
      if (validity && !validity[i]) continue;
      const at = sparse
        ? (Number(r.fields[dims[0]].values[i]) - r0) * cols + (Number(r.fields[dims[1]].values[i]) - c0)
        : i;
      grid[at] = Number(values[i]);
    }
    let lo = Infinity, hi = -Infinity;
    for (const v of grid) if (Number.isFinite(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
    const k = Math.max(1, Math.floor(512 / Math.max(rows, cols)));
    const canvas = $('heatmap');
    canvas.width = cols * k;
    canvas.height = rows * k;
    const ctx = canvas.getContext('2d');
    const img = ctx.createImageData(canvas.width, canvas.height);
    for (let y = 0; y < rows; ++y) {
      for (let x = 0; x < cols; ++x) {
        const v = grid[y * cols + x];
        if (!Number.isFinite(v)) continue;  // no cell: transparent
        const [cr, cg, cb] = colour(hi > lo ? (v - lo) / (hi - lo) : 0.5);
        for (let dy = 0; dy < k; ++dy) {
          let p = ((y * k + dy) * canvas.width + x * k) * 4;
          for (let dx = 0; dx < k; ++dx, p += 4) {
            img.data[p] = cr; img.data[p + 1] = cg; img.data[p + 2] = cb; img.data[p + 3] = 255;
          }
        }
      }
    }
    ctx.putImageData(img, 0, 0);
    const bar = $('colourbar').getContext('2d');
    for (let y = 0; y < 200; ++y) {
      const [cr, cg, cb] = colour(1 - y / 199);
      bar.fillStyle = `rgb(${cr},${cg},${cb})`;
      bar.fillRect(0, y, 24, 1);
    }
    $('scale').innerHTML = `<div>${escape(hi)}</div><div>${escape(lo)}</div>`;
    state.heatmap = { rows, cols, k, lo, hi, grid: Array.from(grid), attr };
    $('heat-status').textContent = `${attr}: ${r.cells} cells, ${lo} to ${hi}`;
  } catch (err) {
    $('heat-status').textContent = `${err.name}: ${err.message}`;
  }
}

$('open-url').addEventListener('submit', async (e) => {
  e.preventDefault();
  const url = new URL($('url').value, location.href).href;
  try {
    status(`Opening ${url} ...`);
    await show(await open(url), url);
  } catch (err) {
    status(`${err.name}: ${err.message}`, true);
  }
});
$('folder').addEventListener('change', async () => {
  try {
    status('Opening the folder ...');
    const obj = await openFiles($('folder').files);
    await show(obj, obj.url);
  } catch (err) {
    status(`${err.name}: ${err.message}`, true);
  }
});
$('query').addEventListener('submit', runQuery);
$('heatmap-form').addEventListener('submit', drawHeatmap);

// For tests and links: ?url=...&heatmap=1 opens (and draws) at load.
window.inspector = { colour, state, ready: null };
const params = new URLSearchParams(location.search);
if (params.get('url')) {
  $('url').value = params.get('url');
  window.inspector.ready = (async () => {
    const url = new URL(params.get('url'), location.href).href;
    try {
      await show(await open(url), url);
      if (params.get('member')) {
        await show(await state.object.open(params.get('member')), `${url} / ${params.get('member')}`);
      }
      if (params.get('heatmap') && state.object.type === 'array') {
        if (params.get('attr')) $('heat-attr').value = params.get('attr');
        if (params.get('region')) $('heat-ranges').value = params.get('region');
        await drawHeatmap();
      }
    } catch (err) {
      status(`${err.name}: ${err.message}`, true);
    }
    return true;
  })();
}
