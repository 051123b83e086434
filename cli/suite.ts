#!/usr/bin/env -S node --max-semi-space-size=8
/**
 * The `suite` command's entry point: turns on Node's module compile cache, then runs the command
 * (cli/command.ts). Only a dynamic import comes after the cache is on: static imports would be
 * loaded and compiled before this module's body runs.
 *
 * Why: the suite's process loads over a hundred TypeScript modules and each worker thread a dozen
 * or more, and Node strips their types and compiles them at every load. With the cache (on disk, in
 * `os.tmpdir()/node-compile-cache` unless NODE_COMPILE_CACHE names another folder; off with
 * NODE_DISABLE_COMPILE_CACHE=1) two verification threads start on half the CPU (~150 ms instead of
 * ~340), and `suite start` on ~25% less (docs/PERFORMANCE.md, "Start-up"). Setting
 * NODE_COMPILE_CACHE here hands the cache to the worker threads, which would not use it otherwise.
 * A cache that cannot be opened only costs the saving: Node then compiles as before.
 *
 * `--max-semi-space-size=8` (here and in `npm start`): Node 24 lets the young generation of V8's heap
 * grow to 2 × 64 MB, and the suite's start and load grow it there and keep it, resident: half the
 * memory of the idle suite. Capped at 2 × 8 MB, the embedded default idles at ~180 MB PSS instead
 * of ~250 (docs/PERFORMANCE.md, "Memory of the embedded default", with its CPU cost). It can only be
 * given on Node's command line (or NODE_OPTIONS): V8 sizes its heap before any module runs.
 */
import { enableCompileCache, getCompileCacheDir } from 'node:module';

enableCompileCache();
const cacheDir = getCompileCacheDir();
if (cacheDir !== undefined && process.env.NODE_COMPILE_CACHE === undefined) process.env.NODE_COMPILE_CACHE = cacheDir;

const { run } = await import('./command.ts');
run(process.argv.slice(2));
