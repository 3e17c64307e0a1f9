type ResponseSchemas = typeof import('./response-schemas');

let loaded: ResponseSchemas | undefined;
let loading: Promise<ResponseSchemas> | undefined;

/** Loads the shell's response schemas (and zod) once; a failed load is tried again by the next call. */
export function loadResponseSchemas(): Promise<ResponseSchemas> {
  loading ??= import('./response-schemas').then(
    (schemas) => (loaded = schemas),
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/**
 * A schema of `response-schemas` as a loader for `api-client`'s `schema` option: modules of the first screen
 * validate their answers with the shared zod schemas without importing zod themselves (bench/results.md §3).
 * Once loaded, the schema is handed over at once.
 */
export function lazySchema<K extends keyof ResponseSchemas>(
  name: K,
): () => ResponseSchemas[K] | Promise<ResponseSchemas[K]> {
  return () => (loaded ? loaded[name] : loadResponseSchemas().then((schemas) => schemas[name]));
}
