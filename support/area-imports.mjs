// The domain's areas and what each may import (docs/architecture.md, "The domain's areas"), and the
// ESLint rule that holds them: an area imports only the areas listed for it, and only through their
// index.ts; code outside the domain reaches an area through its index.ts too; the shared kernel (the
// files directly in src/domain) imports no area; ports/ may name an area's record types (type-only).
import { dirname, relative, resolve, sep } from 'node:path';

/** Each area, with the areas it may import. Together they form no circle (a test checks it). */
export const AREAS = {
  money: [],
  tax: ['money'],
  notifications: [],
  catalog: ['money', 'tax', 'notifications'],
  accounts: ['catalog'],
  payments: ['money', 'tax', 'notifications'],
  billing: ['money', 'tax', 'notifications', 'payments'],
  checkout: ['money', 'tax', 'notifications', 'catalog', 'payments', 'billing'],
  processor: ['payments'],
  portal: ['money', 'tax', 'payments', 'billing', 'checkout', 'notifications'],
  reports: ['money', 'notifications', 'payments', 'billing', 'processor'],
  books: ['money', 'tax', 'payments'],
  webhooks: ['money'],
};

/** Entry files besides index.ts: the widget bundles buyer-money.ts alone, without the rest of money/. */
export const ENTRIES = { money: ['buyer-money.ts'] };

const ROOT = dirname(dirname(new URL(import.meta.url).pathname));

/** 'kernel', 'ports', an area's name, or undefined for a file outside src/domain. */
export function areaOf(repoPath) {
  const parts = repoPath.split(/[\\/]/);
  if (parts[0] !== 'src' || parts[1] !== 'domain') return undefined;
  if (parts.length === 3) return 'kernel';
  return parts[2];
}

/** Why `fromFile` may not import `toFile` (repository paths), or undefined when it may. */
export function refusal(fromFile, toFile, typeOnly) {
  const from = areaOf(fromFile);
  const to = areaOf(toFile);
  if (to === undefined || to === 'kernel' || to === 'ports' || to === from) return undefined;
  if (from === 'ports')
    return typeOnly ? undefined : `ports/ names an area's types only (import type) and runs no area's code.`;
  if (from === 'kernel') return `The kernel (the files directly in src/domain) imports no area; ${to}/ builds on it.`;
  if (from !== undefined && !AREAS[from]?.includes(to))
    return `The ${from} area may import ${AREAS[from]?.join(', ') || 'no other area'}, not ${to} (support/area-imports.mjs).`;
  const entries = ['index.ts', ...(ENTRIES[to] ?? [])];
  if (!entries.some((entry) => toFile.endsWith(`${to}/${entry}`)))
    return `Reach the ${to} area through its public surface, ${to}/index.ts.`;
  return undefined;
}

const check = (context, node, typeOnly) => {
  const spec = node.source?.value;
  if (typeof spec !== 'string' || !spec.startsWith('.')) return;
  const fromFile = relative(ROOT, context.filename).split(sep).join('/');
  if (!fromFile.startsWith('src/')) return;
  const toFile = relative(ROOT, resolve(dirname(context.filename), spec))
    .split(sep)
    .join('/');
  const message = refusal(fromFile, toFile, typeOnly);
  if (message) context.report({ node: node.source, message });
};

export const areaImportsPlugin = {
  rules: {
    'area-imports': {
      meta: { type: 'problem', schema: [] },
      create: (context) => ({
        ImportDeclaration: (node) =>
          check(
            context,
            node,
            node.importKind === 'type' ||
              (node.specifiers.length > 0 && node.specifiers.every((s) => s.importKind === 'type')),
          ),
        ExportNamedDeclaration: (node) => check(context, node, node.exportKind === 'type'),
        ExportAllDeclaration: (node) => check(context, node, node.exportKind === 'type'),
        ImportExpression: (node) => check(context, node, false),
      }),
    },
  },
};
