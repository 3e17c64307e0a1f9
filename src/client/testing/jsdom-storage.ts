/**
 * Client tests run against jsdom's Web Storage, whatever Node provides.
 *
 * Vitest's jsdom environment copies the page's globals onto Node's global object but leaves alone every name
 * Node already defines (except a fixed list that does not include the storage areas). Node 25 and later define
 * `localStorage` and `sessionStorage` themselves (`localStorage` is undefined without `--localstorage-file`),
 * so without this the tests would read and write Node's storage, not the page's, and `window.localStorage` would
 * be undefined. The page's storage is put back here, so the tests pass on Node 22, 24 and 26 without flags.
 */
export const STORAGE_AREAS = ['localStorage', 'sessionStorage'] as const;

type StorageArea = (typeof STORAGE_AREAS)[number];

/** Makes `target.localStorage` and `target.sessionStorage` the ones of `page` (jsdom's window). */
export function installJsdomStorage(target: object, page: Record<StorageArea, Storage>): void {
  for (const area of STORAGE_AREAS) {
    Object.defineProperty(target, area, {
      configurable: true,
      enumerable: true,
      get: () => page[area],
    });
  }
}

/** jsdom's own window: Vitest's jsdom environment exposes the JSDOM instance as the global `jsdom`. */
export function jsdomWindow(): Record<StorageArea, Storage> {
  const dom = (globalThis as { jsdom?: { window: Record<StorageArea, Storage> } }).jsdom;
  if (!dom) throw new Error("client tests need Vitest's jsdom environment (globalThis.jsdom is missing)");
  return dom.window;
}
