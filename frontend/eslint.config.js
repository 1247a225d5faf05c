// ESLint for the UI: JavaScript's and typescript-eslint's recommended rules
// with type information (a promise nobody handles is an error), and
// eslint-plugin-svelte's for components and rune modules.
import js from '@eslint/js'
import { defineConfig } from 'eslint/config'
import svelte from 'eslint-plugin-svelte'
import globals from 'globals'
import ts from 'typescript-eslint'
import svelteConfig from './svelte.config.js'

export default defineConfig(
  { ignores: ['dist/', 'wailsjs/', 'node_modules/'] },
  js.configs.recommended,
  ts.configs.recommendedTypeChecked,
  svelte.configs.recommended,
  {
    languageOptions: {
      globals: globals.browser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname, extraFileExtensions: ['.svelte'] },
    },
  },
  {
    files: ['**/*.svelte', '**/*.svelte.ts'],
    languageOptions: { parserOptions: { parser: ts.parser, svelteConfig } },
  },
  {
    // The build's own configuration runs in Node, outside the app's tsconfig.
    files: ['*.config.{js,ts}'],
    extends: [ts.configs.disableTypeChecked],
    languageOptions: { globals: globals.node },
  },
)
