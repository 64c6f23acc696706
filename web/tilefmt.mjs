// tilefmt — TileDB arrays and groups in JavaScript, read by tilefmt's
// WebAssembly module. One API for a page, a Worker and Node; every call
// answers with a promise, and on a page's main thread the work runs in a
// Worker, so the page never blocks.
//
//   import { open } from './tilefmt.mjs';
//   const a = await open('https://example.org/data/my_array');
//   const schema = await a.schema();
//   const r = await a.query({ ranges: [[1, 100], [[5, 9], [20, 30]]], attributes: ['v'], where: ['v', '>', 3] });
//   r.fields.v.values  // Int32Array
//   for await (const part of a.batches({ attributes: ['v'] }, 16 << 20)) ...   // parts of about 16 MiB
//
// In a browser an object is read over HTTP range requests, its files known
// from the listing document beside it (`<url>.tilefmt-listing`, written by
// tilefmt.web.write_listing). In Node, `open` takes such URLs or a path of the
// file system.
// Errors are Error objects named tilefmt.FormatError, tilefmt.IOError or
// tilefmt.Error, with tilefmt's messages (file, field and byte offset).

const inNode = typeof process === 'object' && process.versions && process.versions.node;
const onMainThread = typeof window === 'object' && typeof document === 'object';

// ---- Node and Workers: the module in this thread ------------------------------
let local = null;
function localCore() {
  if (!local) local = inNode ? nodeCore() : workerCore();
  return local;
}

async function nodeCore() {
  const { createRequire } = await import('node:module');
  const require = createRequire(import.meta.url);
  const fs = require('fs');
  const createCore = require('./tilefmt_core.js');
  const impl = require('./tilefmt_impl.js');
  // Given the bytes, the module does not try fetch() on a file path.
  const wasmBinary = fs.readFileSync(new URL('./tilefmt_core.wasm', import.meta.url));
  const core = await createCore({ wasmBinary });
  // URLs through synchronous requests of a helper thread, made when first needed.
  let transportSet = false;
  const remote = (url, options) => {
    if (!transportSet) impl.setTransport(require('./tilefmt_node_request.js').syncTransport());
    transportSet = true;
    return impl.urlSource(url, options, core);
  };
  return { core, impl, source: (url, options) => (/^(https?|s3):\/\//.test(url) ? remote(url, options) : impl.fileSource(fs)) };
}

async function workerCore() {
  // Classic scripts in a module Worker: fetched and run in the global scope.
  for (const name of ['tilefmt_core.js', 'tilefmt_impl.js']) {
    const text = await (await fetch(new URL(name, import.meta.url))).text();
    (0, eval)(text);
  }
  const core = await globalThis.createTilefmtCore({ locateFile: (f) => new URL(f, import.meta.url).href });
  const impl = globalThis.tilefmtImpl;
  return { core, impl, source: (url, options) => impl.urlSource(url, options, core) };
}

/// An object of this thread behind the promise-answering interface.
function localObject(obj) {
  const methods = obj.objectType === 'array'
    ? ['schema', 'schemaText', 'fragments', 'metadata', 'query', 'aggregate']
    : ['members', 'metadata'];
  const out = { type: obj.objectType, url: obj.url };
  for (const m of methods) out[m] = async (...args) => obj[m](...args);
  if (obj.objectType === 'group') out.open = async (name) => localObject(obj.open(name));
  if (obj.objectType === 'array') {
    out.batches = async function* batches(q, bytes) {
      const b = obj.startBatches(q, bytes);
      try {
        for (let r = b.next(); r !== null; r = b.next()) yield r;
      } finally {
        b.close();
      }
    };
  }
  out.close = async () => obj.close();
  out.requests = async () => obj.source.requests || 0;
  return out;
}

// ---- A page: the module in a Worker ------------------------------------------------
let worker = null;
let nextId = 1;
const pending = new Map();
function ask(op, ...args) {
  if (!worker) {
    worker = new Worker(new URL('./tilefmt_worker.js', import.meta.url));
    worker.onmessage = (e) => {
      const { id, result, error } = e.data;
      const p = pending.get(id);
      pending.delete(id);
      if (!error) return p.resolve(result);
      const err = new Error(error.message);
      err.name = error.name;
      p.reject(err);
    };
  }
  return new Promise((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject });
    worker.postMessage({ id, op, args });
  });
}

function remoteObject({ handle, type, url }) {
  const call = (method, ...args) => ask('call', handle, method, args);
  const methods = type === 'array'
    ? ['schema', 'schemaText', 'fragments', 'metadata', 'query', 'aggregate']
    : ['members', 'metadata'];
  const out = { type, url };
  for (const m of methods) out[m] = (...args) => call(m, ...args);
  if (type === 'group') out.open = async (name) => remoteObject(await call('open', name));
  if (type === 'array') {
    out.batches = async function* batches(q, bytes) {
      const b = await call('startBatches', q, bytes);
      try {
        for (let r = await ask('call', b.handle, 'next', []); r !== null; r = await ask('call', b.handle, 'next', [])) yield r;
      } finally {
        await ask('close', b.handle);
      }
    };
  }
  out.close = () => ask('close', handle);
  out.requests = () => call('requests');
  return out;
}

/// Opens the array or group at `url` (Node: a path). options: key (AES-256-GCM
/// key: refused, this build has no AES), timestamp (t or [t0, t1], ms),
/// headers (sent with every request), and for s3:// URLs endpoint, region and
/// credentials ({accessKeyId, secretAccessKey, sessionToken}: requests signed
/// with AWS Signature V4; prefer short-lived credentials in a page).
export async function open(url, options = {}) {
  if (onMainThread) return remoteObject(await ask('open', String(url), options, null));
  const { core, impl, source } = await localCore();
  return localObject(impl.openWith(core, source(String(url), options), String(url).replace(/\/+$/, ''), options));
}

/// Opens a folder the user picked (<input type="file" webkitdirectory>):
/// `files` is the input's FileList.
export async function openFiles(files, options = {}) {
  const list = [...files];
  if (!list.length) throw new Error('tilefmt: no files were picked');
  const root = (list[0].webkitRelativePath || list[0].name).split('/')[0];
  if (onMainThread) return remoteObject(await ask('open', root, options, { root, files: list }));
  const { core, impl } = await localCore();
  return localObject(impl.openWith(core, impl.pickedSource(root, list), root, options));
}
