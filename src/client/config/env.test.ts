import { describe, expect, it } from 'vitest';
import { env, readApiOrigin } from './env';

describe('client settings (import.meta.env)', () => {
  it('VITE_API_ORIGIN is optional', () => {
    expect(readApiOrigin(undefined)).toBeUndefined();
    expect(readApiOrigin('')).toBeUndefined();
  });

  it('VITE_API_ORIGIN must be an http(s) URL', () => {
    expect(readApiOrigin('http://localhost:5000')).toBe('http://localhost:5000');
    expect(readApiOrigin('https://api.example.com')).toBe('https://api.example.com');
    expect(() => readApiOrigin('localhost:5000')).toThrow(
      'VITE_API_ORIGIN must be an http(s) URL, got "localhost:5000"',
    );
    expect(() => readApiOrigin('http://')).toThrow('VITE_API_ORIGIN must be an http(s) URL');
    expect(() => readApiOrigin(5000)).toThrow('VITE_API_ORIGIN must be an http(s) URL, got 5000');
  });

  it('reads the mode Vitest runs in', () => {
    expect(env.mode).toBe('test');
    expect(env.isTest).toBe(true);
  });
});
