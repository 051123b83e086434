#!/usr/bin/env node
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
 */
import { enableCompileCache, getCompileCacheDir } from 'node:module';

enableCompileCache();
const cacheDir = getCompileCacheDir();
if (cacheDir !== undefined && process.env.NODE_COMPILE_CACHE === undefined) process.env.NODE_COMPILE_CACHE = cacheDir;

const { run } = await import('./command.ts');
run(process.argv.slice(2));
