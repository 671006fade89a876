/**
 * The pages' browser scripts: each a source in src/http/pages/browser (`<name>.ts`), bundled by esbuild
 * into `<name>.min.js` (src/http/pages/page-scripts-build.ts), which src/http/pages/page-scripts.ts
 * reads from a build or bundles at start.
 */
export const PAGE_SCRIPTS = [
  'checkout-form',
  'embed',
  'confirming',
  'processor-element',
  'manage-processor',
  'panel',
  'logo-upload',
  'product-image-upload',
] as const;

export type PageScriptName = (typeof PAGE_SCRIPTS)[number];

export type PageScripts = Readonly<Record<PageScriptName, string>>;

/** The bundle's file name, in dist/http/pages/browser beside the compiled sources. */
export const bundleFile = (name: PageScriptName) => `${name}.min.js`;
