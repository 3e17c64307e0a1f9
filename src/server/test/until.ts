/**
 * Polls `read` until `done` says yes, or until `ms` have passed: then the last value is answered, and the test's own
 * assertion on it says what was not reached. The window is a ceiling against a hang, not a timing the product
 * promises: on a busy machine (CI's two cores shared by two lanes) background work that takes a second alone can
 * take half a minute, so the default is long and a test that reaches its state early moves on at once (issue 46).
 */
export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 90_000): Promise<T> {
  const deadline = Date.now() + ms;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await read();
  }
  return value;
}
