// tilefmt's JavaScript API over the WebAssembly module, where the module
// runs: in Node, in a Worker (web/tilefmt_worker.js), or wherever the
// caller may block. The page's main thread uses web/tilefmt.mjs, which runs
// this in a Worker and answers with promises.
//
// A classic script (a Worker's importScripts) and a CommonJS module (Node's
// require) at once: it defines `tilefmtImpl` on the global object, or
// exports it.
(function (root) {
  'use strict';

  // ---- Datatypes -------------------------------------------------------------
  const TYPED = {
    INT8: Int8Array, UINT8: Uint8Array, INT16: Int16Array, UINT16: Uint16Array,
    INT32: Int32Array, UINT32: Uint32Array, INT64: BigInt64Array, UINT64: BigUint64Array,
    FLOAT32: Float32Array, FLOAT64: Float64Array, BOOL: Uint8Array,
  };
  const TEXT = new Set(['STRING_ASCII', 'STRING_UTF8', 'CHAR', 'STRING_UTF16', 'STRING_UTF32', 'STRING_UCS2', 'STRING_UCS4']);
  /// The typed array of a datatype: datetimes and times are int64 counts.
  function typedArrayOf(type) {
    if (TYPED[type]) return TYPED[type];
    if (type.startsWith('DATETIME_') || type.startsWith('TIME_')) return BigInt64Array;
    return Uint8Array;  // BLOB, GEOM_*, strings: bytes
  }
  const isFloat = (type) => type === 'FLOAT32' || type === 'FLOAT64';

  const encoder = new TextEncoder();
  const decoder = new TextDecoder();

  /// `value` as the bytes of one value of `type` (little-endian, as stored).
  function encodeValue(type, value) {
    if (typeof value === 'string' && (TEXT.has(type) || type === 'BLOB')) return encoder.encode(value);
    if (value instanceof Uint8Array) return value;
    const T = typedArrayOf(type);
    if (T === Uint8Array && type !== 'UINT8' && type !== 'BOOL') {
      throw new TypeError(`tilefmt: a ${type} value must be a string or a Uint8Array`);
    }
    const big = T === BigInt64Array || T === BigUint64Array;
    const one = new T(1);
    one[0] = big ? BigInt(value) : (typeof value === 'boolean' ? Number(value) : value);
    return new Uint8Array(one.buffer);
  }

  /// A range bound as the module takes it: numbers for floats, decimal
  /// strings for integers (an int64 exceeds a double), bytes for strings.
  function encodeBound(dim, v) {
    if (dim.var) return typeof v === 'string' ? encoder.encode(v) : v;
    if (isFloat(dim.type)) return Number(v);
    return BigInt(v).toString();
  }

  // ---- Sources: where the bytes come from ------------------------------------

  /// Files of the local file system (Node).
  function fileSource(fs) {
    return {
      mergeReads: false,
      size(p) { try { const s = fs.statSync(p); return s.isFile() ? s.size : null; } catch { return null; } },
      isFolder(p) { try { return fs.statSync(p).isDirectory(); } catch { return false; } },
      list(p) {
        try {
          return fs.readdirSync(p, { withFileTypes: true })
            .map((e) => ({ name: e.name, folder: e.isDirectory() }))
            .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
        } catch { return []; }
      },
      read(p, offset, n) {
        let fd;
        try {
          fd = fs.openSync(p, 'r');
          const out = new Uint8Array(n);
          let got = 0;
          while (got < n) {
            const k = fs.readSync(fd, out, got, n - got, offset + got);
            if (k === 0) break;
            got += k;
          }
          return got === n ? out : `file ends before byte ${offset + n}`;
        } catch (e) {
          return e.message;
        } finally {
          if (fd !== undefined) fs.closeSync(fd);
        }
      },
    };
  }

  /// A tree of files listed up front (a listing document, a folder the user
  /// picked): `files` maps paths relative to `base` to their sizes, and
  /// `readFile(relative, offset, n)` gives bytes or a message.
  function treeSource(base, files, readFile, mergeReads) {
    base = base.replace(/\/+$/, '');
    const folders = new Map();  // folder -> Map(name -> isFolder)
    const add = (folder, name, isFolder) => {
      if (!folders.has(folder)) folders.set(folder, new Map());
      const m = folders.get(folder);
      if (!m.has(name) || isFolder) m.set(name, isFolder);
    };
    for (const rel of Object.keys(files)) {
      const parts = rel.split('/');
      for (let i = 0; i < parts.length; ++i) {
        add(parts.slice(0, i).join('/'), parts[i], i < parts.length - 1);
      }
    }
    const relative = (p) => {
      if (p === base) return '';
      if (p.startsWith(base + '/')) return p.slice(base.length + 1).replace(/\/+$/, '');
      return null;
    };
    return {
      mergeReads,
      size(p) { const r = relative(p); return r !== null && r in files ? files[r] : null; },
      isFolder(p) { const r = relative(p); return r !== null && folders.has(r); },
      list(p) {
        const r = relative(p);
        if (r === null || !folders.has(r)) return [];
        return [...folders.get(r)].map(([name, folder]) => ({ name, folder }))
          .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      },
      read(p, offset, n) {
        const r = relative(p);
        if (r === null || !(r in files)) return 'no such file';
        if (offset + n > files[r]) return `file of ${files[r]} bytes ends before byte ${offset + n}`;
        return readFile(r, offset, n);
      },
    };
  }

  /// A listing document (written by `tilefmt.web.write_listing` beside an
  /// array or group, as `<name>.tilefmt-listing`): one line per file,
  /// "<size> <path relative to the object>".
  function parseListing(text) {
    const files = {};
    for (const line of text.split('\n')) {
      if (!line || line.startsWith('#')) continue;
      const space = line.indexOf(' ');
      const size = Number(line.slice(0, space));
      const path = line.slice(space + 1);
      if (space <= 0 || !Number.isSafeInteger(size) || size < 0 || !path || path.split('/').includes('..')) {
        throw new Error(`tilefmt: listing: bad line "${line.slice(0, 80)}"`);
      }
      files[path] = size;
    }
    return files;
  }

  /// A synchronous request (a Worker may block; the page's main thread never
  /// runs this): `range` [offset, length] asks for those bytes only. The
  /// answer has `status` and `response` (an ArrayBuffer).
  function request(method, target, headers, range) {
    const all = { ...(headers || {}) };
    if (range) all.Range = `bytes=${range[0]}-${range[0] + range[1] - 1}`;
    return transport(method, target, all);
  }

  /// Where there is XMLHttpRequest (a Worker), requests go through it; Node
  /// has none and sets its own (setTransport: web/tilefmt_node_request.js).
  let transport = (method, target, headers) => {
    const xhr = new XMLHttpRequest();
    xhr.open(method, target, false);
    for (const [k, v] of Object.entries(headers)) xhr.setRequestHeader(k, v);
    xhr.responseType = 'arraybuffer';
    xhr.send();
    return xhr;
  };
  function setTransport(fn) { transport = fn; }

  /// An Error named as the module names its I/O errors.
  function ioError(message) {
    const err = new Error(message);
    err.name = 'tilefmt.IOError';
    return err;
  }

  /// request(), a failure to send (no server, or a CORS rule that does not
  /// let this page read) thrown as tilefmt's I/O error naming `what`.
  function fetchListing(target, headers, what) {
    try {
      return request('GET', target, headers);
    } catch (e) {
      throw ioError(`tilefmt: ${what}: request failed (no answer, or the server's CORS rules do not let this page read it): ${e.message}`);
    }
  }

  /// A tree of `files` whose bytes are ranged GETs of urlOf(relative path),
  /// sent with headersOf(url).
  function rangedSource(base, files, urlOf, headersOf) {
    const source = treeSource(base, files, (rel, offset, n) => {
      try {
        const url = urlOf(rel);
        const xhr = request('GET', url, headersOf(url), [offset, n]);
        source.requests += 1;
        if (xhr.status !== 206 && xhr.status !== 200) return `HTTP ${xhr.status}`;
        let bytes = new Uint8Array(xhr.response);
        // A server that ignores Range answers 200 with the whole file.
        if (xhr.status === 200) bytes = bytes.subarray(offset, offset + n);
        return bytes.length === n ? bytes : `the server sent ${bytes.length} of ${n} bytes`;
      } catch (e) {
        return `request failed: ${e.message}`;
      }
    }, true);
    source.requests = 0;
    return source;
  }

  // Percent-encoding as SigV4 signs it (RFC 3986: all but A-Z a-z 0-9 - _ . ~),
  // used for every URL so that what is sent is what was signed.
  const encodeStrict = (s) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const encodePath = (p) => p.split('/').map(encodeStrict).join('/');

  /// Files served over HTTP(S) by a static host: those of the listing
  /// document beside the object, or beside a folder holding it (a group's
  /// listing serves its members' URLs too).
  function httpSource(url, headers = {}) {
    const wanted = url.replace(/\/+$/, '');
    const origin = new URL(wanted).origin;
    for (let base = wanted; base.length > origin.length; base = base.slice(0, base.lastIndexOf('/'))) {
      const doc = fetchListing(`${base}.tilefmt-listing`, headers, `${base}.tilefmt-listing`);
      if (doc.status === 404 || doc.status === 403) continue;
      if (doc.status !== 200) throw ioError(`tilefmt: ${base}.tilefmt-listing: HTTP ${doc.status}`);
      const files = parseListing(decoder.decode(new Uint8Array(doc.response)));
      return rangedSource(base, files, (rel) => `${base}/${encodePath(rel)}`, () => headers);
    }
    throw ioError(`tilefmt: no listing document for ${wanted} (write ${wanted}.tilefmt-listing with tilefmt.web.write_listing)`);
  }

  const unxml = (s) => s.replace(/&(lt|gt|quot|apos|amp);/g, (_, e) => ({ lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' })[e]);

  /// The headers of a request to S3 at `url`: options.headers, and with
  /// options.credentials ({accessKeyId, secretAccessKey, sessionToken}) an
  /// AWS Signature V4 the module computes (the browser's synchronous requests
  /// cannot wait for WebCrypto).
  function s3Headers(core, options) {
    const c = options.credentials;
    const fixed = options.headers || {};
    if (!c) return () => fixed;
    if (!c.accessKeyId || !c.secretAccessKey) throw new Error('tilefmt: credentials need accessKeyId and secretAccessKey');
    if (!core || !core.s3Authorization) throw new Error('tilefmt: signing S3 requests needs the module');
    const region = options.region || 'us-east-1';
    return (url) => {
      const u = new URL(url);
      const date = new Date().toISOString().replace(/[-:]|\.\d+/g, '');  // YYYYMMDDTHHMMSSZ
      const signed = { 'x-amz-date': date, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' };
      if (c.sessionToken) signed['x-amz-security-token'] = c.sessionToken;
      signed.Authorization = core.s3Authorization('GET', u.host, u.pathname, u.search.slice(1), date, c.sessionToken || '',
        region, c.accessKeyId, c.secretAccessKey);
      return { ...fixed, ...signed };
    };
  }

  /// An object in an S3 bucket (s3://bucket/key), its files listed with
  /// ListObjectsV2 and read with ranged GETs: anonymously (a public bucket),
  /// signed (options.credentials) or with options.headers (e.g. a bearer
  /// authorization). options: endpoint (path-style, e.g. a local S3 server;
  /// default: the bucket's virtual-hosted address in `region`), region.
  function s3Source(url, options = {}, core = null) {
    const m = /^s3:\/\/([^/]+)\/?(.*)$/.exec(url);
    if (!m) throw new Error(`tilefmt: ${url}: not an s3:// URI`);
    const bucket = m[1], key = m[2].replace(/\/+$/, '');
    const pathStyle = Boolean(options.endpoint);
    const endpoint = (options.endpoint || `https://${bucket}.s3.${options.region || 'us-east-1'}.amazonaws.com`).replace(/\/+$/, '');
    const root = pathStyle ? `${endpoint}/${encodeStrict(bucket)}` : endpoint;
    const headersOf = s3Headers(core, options);
    const files = {};
    let token = null;
    do {
      // Parameters in their sorted order: the query is also SigV4's canonical one.
      const query = `${token ? `continuation-token=${encodeStrict(token)}&` : ''}list-type=2&prefix=${encodeStrict(`${key}/`)}`;
      const target = `${root}?${query}`;
      const xhr = fetchListing(target, headersOf(target), `${url}: listing the bucket`);
      const text = decoder.decode(new Uint8Array(xhr.response || new ArrayBuffer(0)));
      if (xhr.status !== 200) throw ioError(`tilefmt: ${url}: listing the bucket: HTTP ${xhr.status} ${text.slice(0, 200)}`);
      for (const c of text.match(/<Contents>[\s\S]*?<\/Contents>/g) || []) {
        const k = unxml((/<Key>([\s\S]*?)<\/Key>/.exec(c) || [])[1] || '');
        const size = Number((/<Size>(\d+)<\/Size>/.exec(c) || [])[1]);
        if (k.startsWith(`${key}/`) && !k.endsWith('/') && Number.isSafeInteger(size)) files[k.slice(key.length + 1)] = size;
      }
      token = /<IsTruncated>true<\/IsTruncated>/.test(text) ? unxml((/<NextContinuationToken>([\s\S]*?)<\/NextContinuationToken>/.exec(text) || [])[1] || '') : null;
    } while (token);
    return rangedSource(`s3://${bucket}/${key}`, files, (rel) => `${root}/${encodePath(`${key}/${rel}`)}`, headersOf);
  }

  /// The source for a URL: s3:// or http(s)://. `core` (the module) signs
  /// S3 requests when options.credentials are given.
  function urlSource(url, options = {}, core = null) {
    return url.startsWith('s3://') ? s3Source(url, options, core) : httpSource(url, options.headers);
  }

  /// Files a user picked (File objects with webkitRelativePath), read with
  /// FileReaderSync in a Worker. `root` is the picked folder's name.
  function pickedSource(root, fileList) {
    const files = {}, byPath = {};
    for (const f of fileList) {
      const rel = f.webkitRelativePath || f.name;
      const inside = rel.startsWith(root + '/') ? rel.slice(root.length + 1) : rel;
      files[inside] = f.size;
      byPath[inside] = f;
    }
    const reader = new FileReaderSync();
    return treeSource(root, files, (rel, offset, n) =>
      new Uint8Array(reader.readAsArrayBuffer(byPath[rel].slice(offset, offset + n))), false);
  }

  // ---- Arrays and groups -------------------------------------------------------

  /// The typed result of one field.
  function typedField(f, raw, cells) {
    const out = { type: f.type, cellValNum: f.cellValNum };
    if (raw.validity) out.validity = raw.validity;
    if (raw.offsets) {
      out.offsets = new BigUint64Array(raw.offsets.buffer, raw.offsets.byteOffset, raw.offsets.length / 8);
      out.data = raw.values;
      if (TEXT.has(f.type)) {
        const strings = new Array(cells);
        for (let c = 0; c < cells; ++c) {
          const b = Number(out.offsets[c]);
          const e = c + 1 < cells ? Number(out.offsets[c + 1]) : raw.values.length;
          strings[c] = decoder.decode(raw.values.subarray(b, e));
        }
        out.values = strings;
      } else {
        out.values = raw.values;
      }
      return out;
    }
    const T = typedArrayOf(f.type);
    out.data = raw.values;
    out.values = T === Uint8Array ? raw.values : new T(raw.values.buffer, raw.values.byteOffset, raw.values.length / T.BYTES_PER_ELEMENT);
    if (TEXT.has(f.type)) {  // fixed-size text: one string per cell
      const n = f.cellValNum;
      out.values = Array.from({ length: cells }, (_, c) => decoder.decode(raw.values.subarray(c * n, (c + 1) * n)));
    }
    return out;
  }

  class TArray {
    constructor(core, source, url, options = {}) {
      let key = options.key || '';
      if (typeof key === 'string' && /^[0-9a-fA-F]{64}$/.test(key)) key = Uint8Array.from(key.match(/../g), (h) => parseInt(h, 16));
      const [t0, t1] = options.timestamp === undefined ? [0, -1]
        : Array.isArray(options.timestamp) ? options.timestamp.map(Number) : [0, Number(options.timestamp)];
      this.url = url;
      this.source = source;
      this._a = new core.Array(source, url, key, t0, t1);
      this._schema = JSON.parse(this._a.schemaJSON());
      this._fields = new Map();
      for (const d of this._schema.dimensions) {
        this._fields.set(d.name, { type: d.type, var: d.cell_val_num === 'var', cellValNum: d.cell_val_num === 'var' ? 0 : d.cell_val_num, dimension: true });
      }
      for (const a of this._schema.attributes) {
        this._fields.set(a.name, { type: a.type, var: a.cell_val_num === 'var', cellValNum: a.cell_val_num === 'var' ? 0 : a.cell_val_num, enumeration: a.enumeration_name, dimension: false });
      }
    }
    get objectType() { return 'array'; }
    schema() { return this._schema; }
    schemaText() { return this._a.schemaText(); }
    fragments() { return JSON.parse(this._a.fragmentsJSON()); }
    metadata() { return JSON.parse(this._a.metadataJSON()); }

    _spec(q = {}) {
      const dims = this._schema.dimensions;
      const spec = {};
      if (q.ranges) {
        spec.ranges = q.ranges.map((list, d) => {
          if (d >= dims.length) throw new RangeError('tilefmt: more ranges than dimensions');
          const dim = { type: dims[d].type, var: dims[d].cell_val_num === 'var' };
          if (list === null || list === undefined) return [];
          // One range [lo, hi] or a list of them.
          const ranges = list.length === 2 && !Array.isArray(list[0]) ? [list] : list;
          return ranges.map(([lo, hi]) => [encodeBound(dim, lo), encodeBound(dim, hi)]);
        });
      }
      if (q.attributes) spec.attributes = q.attributes;
      if (q.layout) spec.layout = { 'row-major': 'C', 'col-major': 'F', global: 'G', unordered: 'U' }[q.layout] || q.layout;
      if (q.where) spec.where = this._condition(q.where);
      return spec;
    }

    /// A condition: [field, op, value] (op <, <=, >, >=, ==, != with a value
    /// of the field's type, null with == and != for null tests; "in" and
    /// "not in" with an array), {and: [...]}, {or: [...]}, {not: c}. A string
    /// compared with an attribute that has an enumeration names a label.
    _condition(c) {
      if (Array.isArray(c)) {
        const [name, op, value] = c;
        const f = this._fields.get(name);
        if (!f) throw new Error(`tilefmt: no field "${name}" in the schema`);
        const label = Boolean(f.enumeration) && (typeof value === 'string' || (Array.isArray(value) && typeof value[0] === 'string'));
        const enc = (v) => (label ? encoder.encode(v) : encodeValue(f.type, v));
        if (op === 'in' || op === 'not in') return ['set', name, op, value.map(enc), label];
        return ['cmp', name, op, value === null ? null : enc(value), label];
      }
      if (c.and || c.or) {
        const kind = c.and ? 'and' : 'or';
        return [kind, c[kind].map((x) => this._condition(x))];
      }
      if (c.not) return ['not', this._condition(c.not)];
      throw new TypeError('tilefmt: a condition is [field, op, value], {and}, {or} or {not}');
    }

    /// {ranges, attributes, layout, where} -> {cells, fields: {name: {values,
    /// data, offsets?, validity?}}}: `values` a typed array (strings for text),
    /// `data` the bytes as stored, `offsets` byte offsets of var-size cells.
    query(q = {}) {
      return this._typed(this._a.read(this._spec(q)));
    }

    _typed(r) {
      const fields = {};
      for (const name of r.names) fields[name] = typedField(this._fields.get(name), r.fields[name], r.cells);
      return { cells: r.cells, names: r.names, fields };
    }

    /// The same query in parts of about `bytes` (default 64 MiB), in the
    /// layout's order: next() gives each part as query() gives a result,
    /// then null.
    startBatches(q = {}, bytes = 64 * 1024 * 1024) {
      const b = this._a.batches(this._spec(q), bytes);
      const array = this;
      return {
        objectType: 'batches',
        next() { const r = b.next(); return r === null ? null : array._typed(r); },
        close() { b.delete(); },
      };
    }

    /// Aggregates over the same selection: what = [[op, field], ...], op one
    /// of count, sum, min, max, mean, null_count. 64-bit integers as BigInt.
    aggregate(q = {}) {
      const spec = this._spec(q);
      spec.what = q.what.map(([op, field]) => [op, field || '']);
      return this._a.aggregate(spec).map((v) => {
        if (v === null || typeof v === 'number') return v;
        if (v instanceof Uint8Array) return decoder.decode(v);
        return BigInt(v.int);
      });
    }
    close() { if (this._a) { this._a.delete(); this._a = null; } }
  }

  class TGroup {
    constructor(core, source, url, options = {}) {
      this.url = url;
      this.source = source;
      this._core = core;
      this._options = options;
      this._g = new core.Group(source, url, options.key || '');
    }
    get objectType() { return 'group'; }
    /// [{name, uri, path, relative, type}]: `path` where the member is.
    members() { return JSON.parse(this._g.membersJSON()); }
    /// The member called `name` (or with that URI), opened from the same
    /// files as the group.
    open(name) {
      const m = this.members().find((x) => x.name === name || x.uri === name);
      if (!m) throw new Error(`tilefmt: group ${this.url} has no member "${name}"`);
      if (m.path === null) throw new Error(`tilefmt: member "${name}" is at ${m.uri}, which this group's storage cannot reach`);
      return openWith(this._core, this.source, m.path, this._options);
    }
    metadata() { return JSON.parse(this._g.metadataJSON()); }
    close() { if (this._g) { this._g.delete(); this._g = null; } }
  }

  /// Opens what is at `url` in `source` (an array or a group).
  function openWith(core, source, url, options = {}) {
    const type = core.objectType(source, url);
    if (type === 'array') return new TArray(core, source, url, options);
    if (type === 'group') return new TGroup(core, source, url, options);
    throw new Error(`tilefmt: ${url}: neither an array nor a group`);
  }

  const api = { openWith, setTransport, fileSource, httpSource, s3Source, urlSource, pickedSource, treeSource, parseListing, encodeValue, typedArrayOf, TArray, TGroup };
  if (typeof module === 'object' && module.exports) module.exports = api;
  else root.tilefmtImpl = api;
})(typeof globalThis !== 'undefined' ? globalThis : this);
