import { defineConfig } from 'vite';

// `npm run client:build`: the library as ESM with no runtime dependency. The verification code it
// shares with the suite (core/chain) and that code's one package (canonicalize, RFC 8785) are
// bundled in; node:crypto is Node's own. Declarations come from tsc (tsconfig.build.json).
export default defineConfig({
  root: import.meta.dirname,
  logLevel: 'warn',
  build: {
    outDir: 'dist',
    emptyOutDir: false,
    target: 'es2023',
    minify: false,
    reportCompressedSize: false,
    lib: { entry: { index: 'src/index.ts', verify: 'src/verify.ts' }, formats: ['es'] },
    rollupOptions: { external: [/^node:/] },
  },
});
