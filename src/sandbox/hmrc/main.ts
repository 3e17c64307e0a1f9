/** `npm run sandbox:hmrc`: the HMRC sandbox on its own (HMRC_SANDBOX_PORT, default 5056; state in DATA_DIR/hmrc-sandbox). */
import path from 'node:path';
import { startHmrcSandbox } from './hmrc-sandbox';

function fail(message: string): never {
  process.stderr.write(`hmrc sandbox: ${message}\n`);
  process.exit(1);
}

const rawPort = process.env.HMRC_SANDBOX_PORT ?? '5056';
if (!/^\d{1,5}$/.test(rawPort) || Number(rawPort) > 65535)
  fail(`Invalid configuration: HMRC_SANDBOX_PORT must be a whole number from 0 to 65535 (got "${rawPort}")`);

let sandbox: Awaited<ReturnType<typeof startHmrcSandbox>>;
try {
  sandbox = await startHmrcSandbox({
    port: Number(rawPort),
    dataDir: path.join(path.resolve(process.env.DATA_DIR ?? './data'), 'hmrc-sandbox'),
    pollIntervalSeconds: Number(process.env.HMRC_SANDBOX_POLL_SECONDS ?? '1') || 0,
  });
} catch (error) {
  fail(`cannot start on port ${rawPort}: ${error instanceof Error ? error.message : String(error)}`);
}
process.stdout.write(`HMRC sandbox listening on ${sandbox.url} (submissions: ${sandbox.submissionUrl})\n`);
process.stdout.write(
  `Scheme: ${sandbox.scheme.name}, employer reference ${sandbox.scheme.taxOfficeNumber}/${sandbox.scheme.taxOfficeReference}, Government Gateway user ${sandbox.scheme.senderId}\n`,
);
const stop = (): void => {
  void sandbox.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
