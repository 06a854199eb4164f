import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/** `npm run dev` proxies the API to a service on :8080; `npm run build` writes web/dist, which the service serves at `/`. */
const api = 'http://127.0.0.1:8080';

export default defineConfig({
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 1024 },
  worker: { format: 'es' },
  server: {
    proxy: { '/api': api, '/health': api, '/api-docs': api },
  },
});
