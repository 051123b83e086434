import { defineConfig } from 'vite';
import solid from 'vite-plugin-solid';

// Built by `npm run build` (and by `npm start` when dashboard/dist is missing); served by the
// dashboard listener (services/dashboard). No environment variable reaches the bundle: it holds no secret.
export default defineConfig({
  root: import.meta.dirname,
  plugins: [solid()],
  envPrefix: 'DASHBOARD_PUBLIC_',
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', reportCompressedSize: false },
  logLevel: 'warn',
});
