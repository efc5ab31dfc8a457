/**
 * Preloaded into the security scanner (NODE_OPTIONS=--require, by scripts/security-scan.js): its two network
 * fetches (translations, Electron's release list) go through `got`, and offline a timed-out request retried by
 * `got` crashes it ("The `onCancel` handler was attached after the promise settled") before it writes a
 * report. Here every `got` request fails at once instead; the scanner already handles a failed fetch (English
 * texts, no release check), so it scans offline and always writes its report.
 */
'use strict';
const Module = require('node:module');

function offline() {
  return Promise.reject(new Error('offline: the security scan makes no network requests'));
}
offline.head = offline;
offline.get = offline;
offline.default = offline;

// Node's module loader hook: the one place every require() passes through.
const LOAD = '_load';
const load = Module[LOAD];
Module[LOAD] = function loadWithoutGot(request, parent, isMain) {
  if (request === 'got') return offline;
  return load.call(this, request, parent, isMain);
};
