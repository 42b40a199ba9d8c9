import { defineConfig } from 'vite';

// base './': every asset URL is relative, so one build works at /admin and under any path prefix
// in front of the gateway; the control plane injects a relative <base href> per deep link
// (docs/admin-ui.md). The manifest lets scripts/bundle-size.mjs follow what each page loads.
export default defineConfig({
  base: './',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    manifest: true,
    sourcemap: false,
    target: 'es2022',
    // The polyfill is an inline-free module, but no browser we support needs it.
    modulePreload: { polyfill: false },
  },
});
