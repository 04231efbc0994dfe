import { defineConfig } from 'vitest/config';

// Unit tests of the extension's TypeScript over payloads twnb's Python tests write (test/fixtures),
// in a DOM (jsdom) with JupyterLab's own sanitizer and Markdown parser.
export default defineConfig({
  test: {
    environment: 'jsdom',
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/setup.ts'],
    testTimeout: 20000,
    // Packages whose ES modules import files without extensions: bundled by Vite, as by JupyterLab's builder.
    server: { deps: { inline: [/@jupyter\/web-components/, /@microsoft\/fast-/] } }
  }
});
