import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';
import layers from './scripts/lint/layers.cjs';

const { LAYERS, PEERS, above } = layers;
const MAX_DEPTH = 4;
const escape = (name) => name.replace(/\./g, '\\.');
const strip = (name) => name.replace(/\.ts$/, '');

/**
 * The layer rule at the import line: for a file `depth` folders below src/, a relative import climbing exactly
 * that many levels names a top-level entry of src/; it must not be one of `names`.
 */
function forbid(files, depth, names, message) {
  const climb = depth === 0 ? '\\./' : `(\\.\\./){${depth}}`;
  const target = `^${climb}(${names.map((n) => escape(strip(n))).join('|')})(/|$)`;
  return {
    files,
    rules: { 'no-restricted-imports': ['error', { patterns: [{ regex: target, message }] }] },
  };
}

function layerRules() {
  const configs = [];
  LAYERS.forEach((names, index) => {
    const higher = above(index);
    if (higher.length === 0) return;
    for (const name of names) {
      const message = `${name} is in layer ${index}: it may not import from a higher layer (${higher.join(', ')}); see docs/architecture.md`;
      const peers = PEERS.find((group) => group.includes(name))?.filter((peer) => peer !== name) ?? [];
      const forbidden = [...higher, ...peers];
      if (name.endsWith('.ts')) {
        configs.push(forbid([`src/${name}`], 0, forbidden, message));
        continue;
      }
      for (let depth = 1; depth <= MAX_DEPTH; depth++) {
        configs.push(forbid([`src/${name}/${'*/'.repeat(depth - 1)}*.ts`], depth, forbidden, message));
      }
    }
  });
  return configs;
}

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'build/**',
      'coverage/**',
      'test/fixtures/layers/**',
      'web/dist/**',
      'web/node_modules/**',
      'web/src/api/schema.d.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  {
    // The web console: its own tsconfig (DOM, JSX), found by the project service.
    files: ['web/**/*.{ts,tsx}'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false, attributes: false } }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  {
    files: ['**/*.{js,mjs,cjs}'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        Buffer: 'readonly',
        fetch: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Tests read JSON bodies loosely; the product code has no \`any\`.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  ...layerRules(),
  prettier,
);
