import { z } from 'zod';

const envSchema = z.object({
  MODE: z.string().default('production'),
  DEV: z.boolean().default(false),
  /** Optional origin of the API when it is not the page's own (never needed in production). */
  VITE_API_ORIGIN: z.string().url().optional(),
});

const parsed = envSchema.parse(import.meta.env);

export const env = {
  mode: parsed.MODE,
  isDev: parsed.DEV,
  isTest: parsed.MODE === 'test',
  apiOrigin: parsed.VITE_API_ORIGIN,
} as const;
